export { BUILTIN_PLATFORMS } from './builtin/index.js';
export { instagramMediaId } from './builtin/meta.js';
export { PlatformsFileError, parsePlatformsFile } from './file.js';
export { createPlatformTable } from './match.js';
export { androidIntentUrl, appTargetFor, type TargetOptions } from './targets.js';
export type { AppTarget, ContentType, Platform, PlatformTable } from './types.js';

export { escapeAttr, escapeHtml, jsonForScript, jsString, safeHref } from './escape-html.js';
export type { EscapePageInput, EscapePageTemplate } from './escape-page.js';
export { compileEscapePage, escapePageCsp, renderEscapePage } from './escape-page.js';
export type { EscapeInstructions, EscapeKind, EscapePlan } from './escape-plan.js';
export { planEscape, xSafariUrl } from './escape-plan.js';
export { ESCAPE_SCRIPT } from './escape-script.js';
export { renderNotFoundPage } from './not-found-page.js';
export type { PagePixel } from './pixels.js';
export { PIXEL_CSP, pixelScript } from './pixels.js';

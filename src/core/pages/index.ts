export { escapeAttr, escapeHtml, jsonForScript, jsString, safeHref } from './escape-html.js';
export type {
  EscapePageInput,
  EscapePageParts,
  EscapePageTemplate,
} from './escape-page.js';
export {
  compileEscapePage,
  compileEscapePageParts,
  ESCAPE_PAGE_BUDGET,
  escapePageCsp,
  fillEscapePage,
  renderEscapePage,
} from './escape-page.js';
export type { ChooseStrategy, EscapeInstructions, EscapeKind, EscapePlan } from './escape-plan.js';
export { allowedStrategies, planEscape, xSafariUrl } from './escape-plan.js';
export { ESCAPE_SCRIPT } from './escape-script.js';
export { renderNotFoundPage } from './not-found-page.js';
export type { PagePixel } from './pixels.js';
export { PIXEL_CSP, pixelScript } from './pixels.js';
export { renderUnavailablePage } from './unavailable-page.js';

import { jsonForScript } from './escape-html.js';

/**
 * Ad pixels on our own pages (escape, fallback, password form), for plans with pixelInjection. Each
 * vendor's documented loader, reduced to the queue stub plus one script element; the ids travel as JSON
 * data (validated per kind when the pixel was saved), never spliced into code.
 */
export interface PagePixel {
  type: 'meta' | 'tiktok' | 'gtm';
  pixelId: string;
}

const LOADER =
  'function L(u){var s=document.createElement("script");s.async=true;s.src=u;document.head.appendChild(s)}' +
  'P.forEach(function(x){' +
  'if(x.type==="meta"){var n=window.fbq=window.fbq||function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};' +
  'if(!n.loaded){n.push=n;n.loaded=true;n.version="2.0";n.queue=[];window._fbq=n;L("https://connect.facebook.net/en_US/fbevents.js")}' +
  'n("init",x.pixelId);n("track","PageView")}' +
  'else if(x.type==="tiktok"){var t=window.ttq=window.ttq||[];if(!t.load){t.methods=["page","track","identify","ready"];' +
  't.methods.forEach(function(m){t[m]=function(){t.push([m].concat([].slice.call(arguments)))}});' +
  't.load=function(id){L("https://analytics.tiktok.com/i18n/pixel/events.js?sdkid="+encodeURIComponent(id)+"&lib=ttq")}}' +
  't.load(x.pixelId);t.page()}' +
  'else if(x.type==="gtm"){window.dataLayer=window.dataLayer||[];window.dataLayer.push({"gtm.start":Date.now(),event:"gtm.js"});' +
  'L("https://www.googletagmanager.com/gtm.js?id="+encodeURIComponent(x.pixelId))}})';

/** The inline script body for these pixels, or '' when there are none. */
export function pixelScript(pixels: readonly PagePixel[]): string {
  if (pixels.length === 0) return '';
  const data = jsonForScript(pixels.map(({ type, pixelId }) => ({ type, pixelId })));
  return `(function(P){${LOADER}})(${data});`;
}

/**
 * CSP additions when pixels are on: the nonce'd loader may add the vendors' scripts ('strict-dynamic'),
 * which then send beacons and images to their own hosts.
 */
export const PIXEL_CSP = {
  script: " 'strict-dynamic' https:",
  img: ' https:',
  connect: ' https:',
  frame: 'frame-src https://www.googletagmanager.com; ',
} as const;

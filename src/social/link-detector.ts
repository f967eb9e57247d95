/**
 * Finds a link in a DM text (automation rule 2): the DM carries the rule's service link, so any other
 * address typed into the text is refused. A scheme is not needed: `www.` names, bare domains with a
 * known top-level domain and shortener addresses count too. Ordinary prose passes: a dot followed by a
 * space, decimals, abbreviations like "e.g." and unknown endings ("Mr.Smith") are not addresses.
 */

// Known shorteners and link hubs, matched whatever follows them.
const SHORTENERS = [
  'bit.ly',
  't.co',
  'goo.gl',
  'tinyurl.com',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'rb.gy',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
  'lnkd.in',
  'youtu.be',
  'amzn.to',
  'fb.me',
  'linktr.ee',
  't.me',
  'wa.me',
  'bit.do',
  'v.gd',
  'rebrand.ly',
  'soo.gd',
  'qr.ae',
  'trib.al',
  'dlvr.it',
  'snip.ly',
  'bl.ink',
  'short.io',
  'lnk.bio',
  'beacons.ai',
];

// Top-level domains common enough in spam and link sharing; bare `word.tld` counts only for these.
const TLDS = new Set(
  (
    'com net org info biz io co ly me app dev link xyz site online store shop top club live blog page tv gg cc ' +
    'ai to gl be us uk de fr es it nl ru cn in br au ca jp kr pl se no fi dk ch at eu ie nz za mx ar cl pt gr tr ' +
    'ua cz hu ro sk il sg hk tw my ph id vn th ee lv lt is li lu ws fm am vc sh im la ms gd ac tech space ' +
    'website icu vip work click fun email social media news agency digital world today one pro mobi asia tk ml ' +
    'ga cf gq pw su ng ke gh pk bd lk np'
  ).split(' '),
);

const SCHEME = /\b(?:https?|ftp):\/\/[^\s<>"']+/i;
const WWW = /\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)*[^\s<>"']*/i;
// label(.label)+ with an optional port and path; the look-behind keeps emails' local parts and words
// glued to other symbols out.
const DOMAIN =
  /(?<![\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?![\w-])(?::\d{2,5})?(?:\/[^\s<>"']*)?/gi;

const TRAILING = /[.,;:!?)\]}'"»”’]+$/;

function trimTail(match: string): string {
  return match.replace(TRAILING, '');
}

/** The first offending substring, or null when the text carries no link. */
export function findRawLink(text: string): string | null {
  const scheme = SCHEME.exec(text);
  if (scheme) return trimTail(scheme[0]);
  const www = WWW.exec(text);
  if (www) return trimTail(www[0]);
  for (const match of text.matchAll(DOMAIN)) {
    const host = (match[1] ?? '').toLowerCase();
    const tld = (match[2] ?? '').toLowerCase();
    const isShortener = SHORTENERS.some((s) => host === s || host.endsWith(`.${s}`));
    if (isShortener || TLDS.has(tld)) return trimTail(match[0]);
  }
  return null;
}

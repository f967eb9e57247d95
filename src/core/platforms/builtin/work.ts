import type { Platform } from '../types.js';
import { param } from '../url-parts.js';
import { define, query, SLUG } from './define.js';

const SLACK_ID = /^[A-Z0-9]{8,12}$/;
// Slack's own service subdomains, not workspaces.
const SLACK_SERVICE = new Set([
  'api',
  'status',
  'hooks',
  'files',
  'slack-files',
  'downloads',
  'get',
  'a',
  'ca',
]);
const SLACK_SERVICE_MORE = new Set(['edgeapi', 'wss', 'docs', 'help', 'my', 'tools', 'community', 'slackhq']);

export const slack: Platform = define(
  {
    key: 'slack',
    name: 'Slack',
    hosts: ['slack.com', 'app.slack.com', '*.slack.com'],
    shortHosts: [],
    android: { package: 'com.Slack' },
    ios: { scheme: 'slack', appStoreId: '618783545' },
    contentTypes: ['workspace', 'channel', 'message', 'invite', 'profile'],
  },
  ({ host, segs }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (host === 'slack.com') return null;
    if (host === 'app.slack.com') {
      if (a !== 'client' || !b || !SLACK_ID.test(b) || n > 3) return null;
      if (n === 2) return { type: 'workspace', team: b };
      return c && SLACK_ID.test(c) ? { type: 'channel', team: b, channel: c } : null;
    }
    if (host === 'join.slack.com') {
      return a === 't' && b && c === 'shared_invite' && d && n === 4 ? { type: 'invite' } : null;
    }
    const sub = host.slice(0, -'.slack.com'.length);
    if (sub.includes('.') || SLACK_SERVICE.has(sub) || SLACK_SERVICE_MORE.has(sub)) return null;
    if (n === 0) return { type: 'workspace' };
    if (a === 'archives' && b && SLACK_ID.test(b)) {
      if (n === 2) return { type: 'channel' };
      return n === 3 && c && /^p\d{10,20}$/.test(c) ? { type: 'message' } : null;
    }
    return a === 'team' && b && SLACK_ID.test(b) && n === 2 ? { type: 'profile' } : null;
  },
  ({ team, channel }) => {
    if (team && channel) return `slack://channel?team=${team}&id=${channel}`;
    return team ? `slack://open?team=${team}` : null;
  },
);

export const zoom: Platform = define(
  {
    key: 'zoom',
    name: 'Zoom',
    hosts: ['zoom.us', '*.zoom.us'],
    shortHosts: [],
    android: { package: 'us.zoom.videomeetings' },
    ios: { scheme: 'zoomus', appStoreId: '546505307' },
    contentTypes: ['meeting', 'webinar'],
  },
  ({ segs, url }) => {
    const [a, b] = segs;
    if (segs.length !== 2 || !b) return null;
    if (a === 'j' && /^\d{9,12}$/.test(b)) {
      const pwd = param(url, 'pwd');
      return pwd === null ? { type: 'meeting', id: b } : { type: 'meeting', id: b, pwd };
    }
    if (a === 'my' && SLUG.test(b)) return { type: 'meeting' };
    return a === 'w' && /^\d{9,12}$/.test(b) ? { type: 'webinar' } : null;
  },
  // Zoom's documented join form; vanity rooms and webinars keep the universal link.
  ({ id, pwd }) =>
    id
      ? `zoomus://zoom.us/join?${query([
          ['confno', id],
          ['pwd', pwd],
        ])}`
      : null,
);

import type { Client } from 'openapi-fetch';
import type { paths } from '../openapi.js';

/** The typed openapi-fetch client every method group calls through. */
export type Api = Client<paths>;

/** The `{id}` path parameter most operations take. */
export const byId = (id: string) => ({ params: { path: { id } } });

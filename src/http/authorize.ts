import type { FastifyInstance, FastifyRequest } from 'fastify';
import { appError } from '../errors.js';
import {
  PERMISSIONS,
  type Permission,
  type Role,
  roleAllows,
  type Scope,
  scopesAllow,
} from '../tenancy/permissions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What a caller needs to use this route (src/tenancy/permissions.ts). Every /v1 and /api route
     * declares one; test/accounts/route-permissions.test.ts fails on a route that does not.
     */
    permission?: Permission;
  }
  interface FastifyInstance {
    /** Every route of the app as registered, with its declared permission: what the role test walks. */
    routeCatalog: RouteEntry[];
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  permission: Permission | undefined;
}

/** Who is asking: a person with a role in the organization, or an API key with scopes. */
export type Principal = { type: 'user'; role: Role } | { type: 'key'; scopes: readonly Scope[] };

/** Records every route as it is registered; call before any route is. */
export function collectRoutes(app: FastifyInstance): void {
  const catalog: RouteEntry[] = [];
  app.decorate('routeCatalog', catalog);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const permission = (route.config as { permission?: Permission } | undefined)?.permission;
    for (const method of methods) catalog.push({ method, url: route.url, permission });
  });
}

/**
 * The one role and scope check: the route's declared permission against the caller. Called by the /v1
 * key hook and the dashboard's session hook once they know who is asking, before any body is read.
 */
export function authorize(request: FastifyRequest, principal: Principal): void {
  const permission = request.routeOptions.config.permission;
  if (permission === 'public') return;
  if (principal.type === 'user') {
    if (roleAllows(principal.role, permission)) return;
    const least = permission ? PERMISSIONS[permission].role : 'owner';
    throw appError(
      'forbidden_role',
      `Your role in this organization (${principal.role}) cannot do this; it needs ${least} or above`,
    );
  }
  if (scopesAllow(principal.scopes, permission)) return;
  const granting = permission ? PERMISSIONS[permission].scopes.filter((scope) => scope !== 'all') : [];
  throw appError(
    'forbidden_scope',
    `This API key's scopes (${principal.scopes.join(', ')}) do not allow this; it needs ` +
      `${[...granting, 'all'].join(' or ')}`,
  );
}

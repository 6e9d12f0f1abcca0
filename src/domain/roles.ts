// Roles of API keys and what each may do. Every route declares the role it needs.

export const ROLES = ['app', 'admin'] as const;
export type Role = (typeof ROLES)[number];
/** What a route may require: a role, any valid key, or nothing at all. */
export type RouteAccess = Role | 'public';

/** admin can do everything an app can; app can only read accounts and /me. */
export function roleSatisfies(have: Role, need: RouteAccess): boolean {
  if (need === 'public') return true;
  return need === 'app' ? true : have === 'admin';
}

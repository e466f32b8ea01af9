/** Where the UI is: kept in the query string (http-api.md 4.12) so a reload or a shared link reopens it. */
export interface UrlState {
  app?: string;
  userId: string;
  session?: string;
  tab?: string;
}

export const DEFAULT_USER = "user";

export function readUrlState(search: string): UrlState {
  const params = new URLSearchParams(search);
  const value = (key: string) => {
    const v = params.get(key);
    return v?.trim() ? v : undefined;
  };
  return {
    userId: value("userId") ?? DEFAULT_USER,
    ...(value("app") ? { app: value("app") } : {}),
    ...(value("session") ? { session: value("session") } : {}),
    ...(value("tab") ? { tab: value("tab") } : {}),
  };
}

/** The query string for a state, keeping unrelated parameters (feature flags) of `current`. */
export function writeUrlState(state: UrlState, current = ""): string {
  const params = new URLSearchParams(current);
  for (const key of ["app", "userId", "session", "tab"]) params.delete(key);
  if (state.app) params.set("app", state.app);
  params.set("userId", state.userId);
  if (state.session) params.set("session", state.session);
  if (state.tab) params.set("tab", state.tab);
  return `?${params.toString()}`;
}

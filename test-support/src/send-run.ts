/**
 * One agent flow as a client sends it to an agentkit server at `url`: a fresh session of `app`
 * for user `u` (failing if it cannot be made), then one run on it (`/run` by default, or
 * `/run_sse`) saying `text` ("hi" by default). Resolves with the run's response as it came.
 */
export async function sendRun(
  url: string,
  app: string,
  options: { route?: "/run" | "/run_sse"; text?: string } = {},
): Promise<Response> {
  const created = await fetch(`${url}/apps/${app}/users/u/sessions`, { method: "POST" });
  if (created.status !== 200) throw new Error(`session create for ${app}: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  return fetch(`${url}${options.route ?? "/run"}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      appName: app,
      userId: "u",
      sessionId: id,
      newMessage: { role: "user", parts: [{ text: options.text ?? "hi" }] },
    }),
  });
}

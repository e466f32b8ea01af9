import { useEffect, useState } from "preact/hooks";
import type { Api } from "../services/api.js";
import { ArtifactPreview } from "./artifact-preview.js";

interface Props {
  api: Api;
  app: string;
  userId: string;
  sessionId: string;
  revision: number;
  onError(message: string): void;
}

/** The session's artifacts with their versions; picking one previews and offers a download. */
export function ArtifactsPanel({ api, app, userId, sessionId, revision, onError }: Props) {
  const [artifacts, setArtifacts] = useState<{ name: string; versions: number[] }[] | undefined>();
  const [picked, setPicked] = useState<{ name: string; version: number } | undefined>();
  useEffect(() => {
    let live = true;
    (async () => {
      const names = await api.listArtifacts(app, userId, sessionId);
      const list = await Promise.all(
        names.map(async (name) => ({ name, versions: await api.artifactVersions(app, userId, sessionId, name) })),
      );
      if (live) setArtifacts(list);
    })().catch((e: Error) => live && onError(`Could not list artifacts: ${e.message}`));
    return () => {
      live = false;
    };
  }, [api, app, userId, sessionId, revision]);

  if (!artifacts) return <p class="muted">Loading artifacts…</p>;
  if (artifacts.length === 0) return <p class="muted">No artifacts in this session.</p>;
  return (
    <section>
      <h3>Artifacts</h3>
      <ul class="artifacts">
        {artifacts.map((a) => (
          <li key={a.name}>
            <span class="artifact-name">{a.name}</span>{" "}
            {a.versions.map((v) => (
              <button
                key={v}
                type="button"
                class={picked?.name === a.name && picked.version === v ? "chip active" : "chip"}
                onClick={() => setPicked({ name: a.name, version: v })}
                aria-label={`${a.name} version ${v}`}
              >
                v{v}
              </button>
            ))}
          </li>
        ))}
      </ul>
      {picked ? (
        <ArtifactPreview
          key={`${picked.name}@${picked.version}`}
          api={api}
          app={app}
          userId={userId}
          sessionId={sessionId}
          {...picked}
        />
      ) : null}
    </section>
  );
}

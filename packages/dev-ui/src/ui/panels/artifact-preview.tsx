import { useEffect, useState } from "preact/hooks";
import { artifactPayload, base64ToBytes, base64ToText, normalizeBase64 } from "../lib/base64.js";
import type { Api } from "../services/api.js";

interface Props {
  api: Api;
  app: string;
  userId: string;
  sessionId: string;
  name: string;
  version: number;
}

const isText = (mime: string) => mime.startsWith("text/") || /json|xml|yaml|csv|javascript/.test(mime);

/** One artifact version: text shown, images drawn, anything downloadable. */
export function ArtifactPreview({ api, app, userId, sessionId, name, version }: Props) {
  const [payload, setPayload] = useState<{ mimeType: string; data: string } | null | undefined>();
  const [href, setHref] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    let url: string | undefined;
    api.artifact(app, userId, sessionId, name, version).then(
      (body) => {
        if (!live) return;
        const p = artifactPayload(body) ?? null;
        setPayload(p);
        if (p) {
          url = URL.createObjectURL(new Blob([base64ToBytes(p.data) as BlobPart], { type: p.mimeType }));
          setHref(url);
        }
      },
      () => live && setPayload(null),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [api, app, userId, sessionId, name, version]);

  if (payload === undefined) return <p class="muted">Loading {name}…</p>;
  if (payload === null) return <p class="error-block">Failed to fetch artifact data.</p>;
  const file = name.split("/").pop() ?? name;
  return (
    <div class="artifact-preview" data-artifact={name}>
      <p>
        <strong>{name}</strong> v{version} <span class="muted">({payload.mimeType})</span>{" "}
        {href ? (
          <a href={href} download={file}>
            Download
          </a>
        ) : null}
      </p>
      {payload.mimeType.startsWith("image/") ? (
        <img class="inline-image" alt={name} src={`data:${payload.mimeType};base64,${normalizeBase64(payload.data)}`} />
      ) : isText(payload.mimeType) ? (
        <figure class="labelled-block" aria-label={`Content of ${name}`}>
          <pre class="json">{base64ToText(payload.data)}</pre>
        </figure>
      ) : (
        <p class="muted">No preview for this type.</p>
      )}
    </div>
  );
}

/** Standard base64 from either alphabet, with padding restored (servers differ, http-api.md 2.2). */
export function normalizeBase64(data: string): string {
  const standard = data.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
  const pad = standard.length % 4;
  return pad === 0 ? standard : standard + "=".repeat(4 - pad);
}

export function base64ToBytes(data: string): Uint8Array {
  const binary = atob(normalizeBase64(data));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

export function base64ToText(data: string): string {
  return new TextDecoder().decode(base64ToBytes(data));
}

/** An artifact answer as `{mimeType, data}` (section 2.3), or undefined when it has neither form. */
export function artifactPayload(body: unknown): { mimeType: string; data: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const r = body as {
    mimeType?: unknown;
    data?: unknown;
    inlineData?: { mimeType?: unknown; data?: unknown };
    text?: unknown;
  };
  if (typeof r.mimeType === "string" && typeof r.data === "string") return { mimeType: r.mimeType, data: r.data };
  if (r.inlineData && typeof r.inlineData.mimeType === "string" && typeof r.inlineData.data === "string") {
    return { mimeType: r.inlineData.mimeType, data: r.inlineData.data };
  }
  if (typeof r.text === "string")
    return { mimeType: "text/plain", data: bytesToBase64(new TextEncoder().encode(r.text)) };
  return undefined;
}

/** The data URL of a file read by FileReader, split into the inlineData fields. */
export function inlineDataFromDataUrl(
  dataUrl: string,
  displayName: string,
): { mimeType: string; data: string; displayName: string } {
  const match = /^data:([^;,]*)(;[^,]*)?,(.*)$/s.exec(dataUrl);
  if (!match) throw new Error(`Not a data URL: ${dataUrl.slice(0, 30)}`);
  return { mimeType: match[1] || "application/octet-stream", data: match[3] ?? "", displayName };
}

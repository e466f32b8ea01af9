import { InvalidArtifactUriError } from "../errors/artifact-errors.js";

// S3's bucket naming rules (s3rver enforces them too): 3-63 chars, lowercase, digits, dots, hyphens.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Checks a bucket name, throwing `InvalidArtifactUriError` with the rule it breaks. */
export function validateBucketName(bucket: string, uri = bucket): void {
  if (!BUCKET.test(bucket) || bucket.includes("..") || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw new InvalidArtifactUriError(
      uri,
      `Invalid S3 bucket name ${JSON.stringify(bucket)}: use 3-63 lowercase letters, digits, dots and hyphens, ` +
        `starting and ending with a letter or digit.`,
    );
  }
}

/** Normalises a key prefix: no leading/trailing slashes, no empty, "." or ".." segments. */
export function normalizePrefix(prefix: string | undefined, uri = prefix ?? ""): string {
  const trimmed = (prefix ?? "").replace(/^\/+|\/+$/g, "");
  if (trimmed === "") return "";
  for (const segment of trimmed.split("/")) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    if (segment === "" || segment === "." || segment === ".." || /[\u0000-\u001f\u007f\\]/.test(segment)) {
      throw new InvalidArtifactUriError(
        uri,
        `Invalid S3 key prefix ${JSON.stringify(prefix)}: segment ${JSON.stringify(segment)} is not allowed.`,
      );
    }
  }
  return trimmed;
}

/** `s3://bucket/some/prefix` → bucket and normalised prefix. */
export function parseS3Uri(uri: string): { bucket: string; prefix: string } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch (cause) {
    throw new InvalidArtifactUriError(
      uri,
      `Invalid artifact service URI ${JSON.stringify(uri)}; expected s3://bucket/prefix.`,
      { cause },
    );
  }
  if (url.protocol !== "s3:") {
    throw new InvalidArtifactUriError(
      uri,
      `S3ArtifactService takes an s3:// URI, got ${JSON.stringify(url.protocol)}; expected s3://bucket/prefix.`,
    );
  }
  if (url.username !== "" || url.password !== "" || url.port !== "") {
    throw new InvalidArtifactUriError(
      uri,
      `S3 URI ${JSON.stringify(uri)} must not carry credentials or a port; use the AWS environment variables.`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new InvalidArtifactUriError(uri, `S3 URI ${JSON.stringify(uri)} must not have a query or fragment.`);
  }
  // URL parsing silently resolves "a/../b" to "b"; refuse dot segments as written instead.
  const rawPath = uri.slice(uri.indexOf("//") + 2).split(/[?#]/)[0] ?? "";
  if (
    rawPath
      .split("/")
      .slice(1)
      .some(
        (segment) =>
          segment === "." || segment === ".." || /^%2e(%2e)?$/i.test(segment) || /^\.%2e$|^%2e\.$/i.test(segment),
      )
  ) {
    throw new InvalidArtifactUriError(
      uri,
      `S3 URI ${JSON.stringify(uri)}: "." and ".." segments are not allowed in the prefix.`,
    );
  }
  if (url.hostname === "")
    throw new InvalidArtifactUriError(
      uri,
      `S3 URI ${JSON.stringify(uri)} names no bucket; expected s3://bucket/prefix.`,
    );
  validateBucketName(url.hostname, uri);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch (cause) {
    throw new InvalidArtifactUriError(uri, `S3 URI ${JSON.stringify(uri)} has a malformed percent escape.`, { cause });
  }
  return { bucket: url.hostname, prefix: normalizePrefix(path, uri) };
}

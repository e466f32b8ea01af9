/** Pretty JSON in a scrollable block. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={label}>
      {JSON.stringify(value, null, 2) ?? "undefined"}
    </pre>
  );
}

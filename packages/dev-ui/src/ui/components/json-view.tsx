/** Pretty JSON in a scrollable block; the label names it for assistive technology (a figure may carry one). */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <figure class="labelled-block" aria-label={label}>
      <pre class="json">{JSON.stringify(value, null, 2) ?? "undefined"}</pre>
    </figure>
  );
}

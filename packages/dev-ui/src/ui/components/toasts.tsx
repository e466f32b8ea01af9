export interface Toast {
  id: number;
  message: string;
}

export function Toasts({ toasts, onDismiss }: { toasts: Toast[]; onDismiss(id: number): void }) {
  return (
    <div class="toasts" role="alert" aria-live="assertive">
      {toasts.map((t) => (
        <div key={t.id} class="toast">
          <span>{t.message}</span>
          <button type="button" class="ghost" aria-label="Dismiss" onClick={() => onDismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

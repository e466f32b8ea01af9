import { useRef, useState } from "preact/hooks";
import { inlineDataFromDataUrl } from "../lib/base64.js";
import type { Part } from "../lib/types.js";

interface Props {
  running: boolean;
  onSend(parts: Part[]): void;
  onStop(): void;
  onError(message: string): void;
  extra?: preact.ComponentChildren;
}

const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Message box: Enter sends, Shift+Enter is a newline; files go as inlineData (base64). */
export function Composer({ running, onSend, onStop, onError, extra }: Props) {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<Part[]>([]);
  const input = useRef<HTMLInputElement>(null);

  const send = () => {
    if (running) return;
    const parts: Part[] = [...(text.trim() ? [{ text }] : []), ...files];
    if (parts.length === 0) return;
    onSend(parts);
    setText("");
    setFiles([]);
  };

  const addFiles = async (list: FileList | null) => {
    for (const file of Array.from(list ?? [])) {
      if (file.size > MAX_FILE_BYTES) {
        onError(`${file.name} is larger than 20 MB`);
        continue;
      }
      const dataUrl = await new Promise<string>((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error ?? new Error("read failed"));
        reader.readAsDataURL(file);
      });
      const inlineData = inlineDataFromDataUrl(dataUrl, file.name);
      setFiles((f) => [...f, { inlineData: { ...inlineData, mimeType: file.type || inlineData.mimeType } }]);
    }
    if (input.current) input.current.value = "";
  };

  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {files.length > 0 ? (
        <div class="chips">
          {files.map((f, i) => (
            <span class="chip" key={i}>
              {f.inlineData?.displayName}
              <button
                type="button"
                class="ghost"
                aria-label={`Remove ${f.inlineData?.displayName}`}
                onClick={() => setFiles((l) => l.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
      <div class="row">
        <textarea
          aria-label="Message"
          rows={2}
          value={text}
          placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label="Attach files"
          onChange={(e) => void addFiles((e.currentTarget as HTMLInputElement).files)}
        />
        <button type="button" aria-label="Attach files" title="Attach files" onClick={() => input.current?.click()}>
          + File
        </button>
        {extra}
        {running ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" class="primary">
            Send
          </button>
        )}
      </div>
    </form>
  );
}

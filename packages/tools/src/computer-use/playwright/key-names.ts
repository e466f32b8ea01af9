import { ComputerUseError } from "../computer-use-error.js";

// Names the model uses (lower case, aliases) mapped to Playwright's key names.
const ALIASES: Record<string, string> = {
  control: "Control",
  ctrl: "Control",
  shift: "Shift",
  alt: "Alt",
  option: "Alt",
  meta: "Meta",
  cmd: "Meta",
  command: "Meta",
  super: "Meta",
  enter: "Enter",
  return: "Enter",
  tab: "Tab",
  escape: "Escape",
  esc: "Escape",
  backspace: "Backspace",
  delete: "Delete",
  del: "Delete",
  space: "Space",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  pagedown: "PageDown",
  insert: "Insert",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight",
};

/** The Playwright name of one key (`ctrl` → `Control`, `a` → `a`, `f5` → `F5`). */
export function toPlaywrightKey(key: string): string {
  const trimmed = key.trim();
  const lower = trimmed.toLowerCase();
  if (ALIASES[lower]) return ALIASES[lower];
  if (/^f([1-9]|1[0-9]|2[0-4])$/.test(lower)) return lower.toUpperCase();
  if ([...trimmed].length === 1) return trimmed;
  throw new ComputerUseError(
    `Unknown key "${key}": use a single character or a key name such as Control, Shift, Enter, ArrowUp, F5.`,
  );
}

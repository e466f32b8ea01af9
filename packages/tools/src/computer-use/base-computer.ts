/** Where the computer runs (the spec's `ComputerEnvironment`; Gemini's `computerUse.environment`). */
export const ComputerEnvironment = {
  ENVIRONMENT_UNSPECIFIED: "ENVIRONMENT_UNSPECIFIED",
  ENVIRONMENT_BROWSER: "ENVIRONMENT_BROWSER",
} as const;
export type ComputerEnvironment = (typeof ComputerEnvironment)[keyof typeof ComputerEnvironment];

/** What the model sees after each action: a PNG screenshot and, for browsers, the page URL. */
export interface ComputerState {
  screenshot: Uint8Array;
  url?: string;
}

export type ScrollDirection = "up" | "down" | "left" | "right";

export interface TypeTextOptions {
  /** Press Enter after typing (default true, as Gemini's computer-use model assumes). */
  pressEnter?: boolean;
  /** Select and delete the field's text first (default true). */
  clearBeforeTyping?: boolean;
}

/**
 * A screen the model operates. Coordinates are pixels of `screenSize()`; the toolset converts
 * the model's 0-999 normalized coordinates before calling these. Every action returns the
 * state after it.
 */
export interface BaseComputer {
  screenSize(): Promise<[width: number, height: number]>;
  environment(): Promise<ComputerEnvironment>;
  currentState(): Promise<ComputerState>;
  openWebBrowser(): Promise<ComputerState>;
  clickAt(x: number, y: number): Promise<ComputerState>;
  hoverAt(x: number, y: number): Promise<ComputerState>;
  typeTextAt(x: number, y: number, text: string, options?: TypeTextOptions): Promise<ComputerState>;
  scrollDocument(direction: ScrollDirection): Promise<ComputerState>;
  scrollAt(x: number, y: number, direction: ScrollDirection, magnitude: number): Promise<ComputerState>;
  wait(seconds: number): Promise<ComputerState>;
  goBack(): Promise<ComputerState>;
  goForward(): Promise<ComputerState>;
  /** Opens the default search engine's start page. */
  search(): Promise<ComputerState>;
  navigate(url: string): Promise<ComputerState>;
  /** Presses keys together, e.g. `["Control", "A"]`. */
  keyCombination(keys: string[]): Promise<ComputerState>;
  dragAndDrop(x: number, y: number, destinationX: number, destinationY: number): Promise<ComputerState>;
  /** Releases the browser or VM. Safe to call more than once. */
  close(): Promise<void>;
}

import {
  BaseToolset,
  ConfigurationError,
  FunctionTool,
  type BaseTool,
  type LlmRequest,
  type ReadonlyContext,
  type ToolContext,
  type ToolFilter,
} from "@agentkit/core";
import { z } from "zod";
import { isGeminiModel } from "../built-in/model-names.js";
import type { BaseComputer, ComputerState } from "./base-computer.js";

/** Gemini's computer-use model emits coordinates on a 0-999 grid, whatever the screen size. */
export const NORMALIZED_COORDINATE_RANGE = 1000;

export interface ComputerUseToolsetOptions {
  computer: BaseComputer;
  /** Screen size to map the model's 0-999 coordinates to; default: `computer.screenSize()`. */
  screenSize?: [width: number, height: number];
  toolFilter?: ToolFilter;
}

/** What each tool returns: the URL and the screenshot (moved into an inline image part for the model). */
export interface ComputerToolResult {
  url?: string;
  image: { mimeType: "image/png"; data: string };
}

const coord = z
  .number()
  .min(0)
  .max(NORMALIZED_COORDINATE_RANGE - 1);
const direction = z.enum(["up", "down", "left", "right"]);

/**
 * One tool per computer action, named as Gemini's computer-use model calls them (`click_at`,
 * `type_text_at`, `navigate`, ...). Each returns the state after the action. With a Gemini
 * model the request also declares the native `computerUse` tool; screenshots in function
 * responses are sent as inline PNG parts.
 */
export class ComputerUseToolset extends BaseToolset {
  readonly computer: BaseComputer;
  private readonly fixedSize?: [number, number];
  private tools?: BaseTool[];

  constructor(options: ComputerUseToolsetOptions) {
    super({ toolFilter: options?.toolFilter });
    if (!options?.computer || typeof options.computer.clickAt !== "function") {
      throw new ConfigurationError(
        "ComputerUseToolset needs a `computer` (a BaseComputer such as PlaywrightComputer).",
      );
    }
    const size = options.screenSize;
    if (size !== undefined && !(size.length === 2 && size.every((n) => Number.isInteger(n) && n > 0))) {
      throw new ConfigurationError(
        `ComputerUseToolset screenSize must be [width, height] in positive pixels; got ${JSON.stringify(size)}.`,
      );
    }
    this.computer = options.computer;
    this.fixedSize = size;
  }

  override async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    this.tools ??= this.buildTools();
    return this.tools.filter((t) => this.isToolSelected(t, context));
  }

  override async close(): Promise<void> {
    await this.computer.close();
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    if (isGeminiModel(llmRequest.model)) {
      llmRequest.config.tools ??= [];
      if (!llmRequest.config.tools.some((t) => t.computerUse !== undefined)) {
        llmRequest.config.tools.push({ computerUse: { environment: await this.computer.environment() } });
      }
    }
    moveScreenshotsToParts(llmRequest);
  }

  /** Pixel coordinates of a normalized (0-999) point. */
  async toPixels(x: number, y: number): Promise<[number, number]> {
    const [width, height] = this.fixedSize ?? (await this.computer.screenSize());
    const scale = (v: number, max: number) =>
      Math.min(max - 1, Math.max(0, Math.floor((v / NORMALIZED_COORDINATE_RANGE) * max)));
    return [scale(x, width), scale(y, height)];
  }

  private buildTools(): BaseTool[] {
    const c = this.computer;
    const at = async (x: number, y: number) => this.toPixels(x, y);
    const tool = <S extends z.ZodObject>(
      name: string,
      description: string,
      parameters: S,
      run: (a: z.output<S>) => Promise<ComputerState>,
    ) =>
      new FunctionTool({
        name,
        description,
        parameters,
        execute: async (args) => toResult(await run(args as z.output<S>)),
      });
    const none = z.object({});
    return [
      tool("open_web_browser", "Opens the web browser.", none, () => c.openWebBrowser()),
      tool("wait_5_seconds", "Waits 5 seconds for the page to settle.", none, () => c.wait(5)),
      tool("go_back", "Goes back to the previous page.", none, () => c.goBack()),
      tool("go_forward", "Goes forward to the next page.", none, () => c.goForward()),
      tool("search", "Opens the search engine's start page.", none, () => c.search()),
      tool("navigate", "Opens a URL.", z.object({ url: z.string().min(1) }), ({ url }) => c.navigate(url)),
      tool(
        "click_at",
        "Clicks at a point (x, y on a 0-999 grid).",
        z.object({ x: coord, y: coord }),
        async ({ x, y }) => c.clickAt(...(await at(x, y))),
      ),
      tool("hover_at", "Moves the mouse to a point (0-999 grid).", z.object({ x: coord, y: coord }), async ({ x, y }) =>
        c.hoverAt(...(await at(x, y))),
      ),
      tool(
        "type_text_at",
        "Clicks at a point (0-999 grid) and types text; by default clears the field first and presses Enter after.",
        z.object({
          x: coord,
          y: coord,
          text: z.string(),
          press_enter: z.boolean().optional(),
          clear_before_typing: z.boolean().optional(),
        }),
        async ({ x, y, text, press_enter, clear_before_typing }) =>
          c.typeTextAt(...(await at(x, y)), text, {
            pressEnter: press_enter ?? true,
            clearBeforeTyping: clear_before_typing ?? true,
          }),
      ),
      tool("scroll_document", "Scrolls the whole page.", z.object({ direction }), ({ direction: d }) =>
        c.scrollDocument(d),
      ),
      tool(
        "scroll_at",
        "Scrolls at a point (0-999 grid) by `magnitude` (0-999 grid units, default 800).",
        z.object({ x: coord, y: coord, direction, magnitude: z.number().min(0).max(999).optional() }),
        async ({ x, y, direction: d, magnitude }) => {
          const [px, py] = await at(x, y);
          const [width, height] = this.fixedSize ?? (await c.screenSize());
          const span = d === "left" || d === "right" ? width : height;
          return c.scrollAt(px, py, d, Math.floor(((magnitude ?? 800) / NORMALIZED_COORDINATE_RANGE) * span));
        },
      ),
      tool(
        "key_combination",
        'Presses keys together, e.g. "Control+A" or ["Control", "A"].',
        z.object({ keys: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]) }),
        ({ keys }) => c.keyCombination(typeof keys === "string" ? keys.split("+").map((k) => k.trim()) : keys),
      ),
      tool(
        "drag_and_drop",
        "Drags from (x, y) to (destination_x, destination_y), all on a 0-999 grid.",
        z.object({ x: coord, y: coord, destination_x: coord, destination_y: coord }),
        async ({ x, y, destination_x, destination_y }) =>
          c.dragAndDrop(...(await at(x, y)), ...(await at(destination_x, destination_y))),
      ),
    ];
  }
}

function toResult(state: ComputerState): ComputerToolResult {
  return {
    ...(state.url !== undefined ? { url: state.url } : {}),
    image: { mimeType: "image/png", data: Buffer.from(state.screenshot).toString("base64") },
  };
}

/**
 * Screenshots travel as inline image parts of the function response (what Gemini reads),
 * not as base64 text inside the JSON response. Request contents are shared snapshots: a content
 * holding a screenshot is replaced by a changed copy, never edited.
 */
function moveScreenshotsToParts(request: LlmRequest): void {
  request.contents = request.contents.map((content) => {
    let changed = false;
    const parts = (content.parts ?? []).map((part) => {
      const fr = part.functionResponse;
      const image = fr?.response?.image as { mimeType?: unknown; data?: unknown } | undefined;
      if (!fr || typeof image?.data !== "string" || image.mimeType !== "image/png") return part;
      changed = true;
      const { image: _image, ...rest } = fr.response!;
      return {
        ...part,
        functionResponse: {
          ...fr,
          response: rest,
          parts: [...(fr.parts ?? []), { inlineData: { mimeType: "image/png", data: image.data } }],
        },
      };
    });
    return changed ? { ...content, parts } : content;
  });
}

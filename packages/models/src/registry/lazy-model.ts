import {
  BaseLlm,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";

/** Builds the real model; may import an adapter module (and with it a vendor SDK). */
export type ModelLoader = () => Promise<BaseLlm>;

/**
 * A model that builds the real one on first use, so that resolving a name (or importing
 * `@agentkit/models`) loads no vendor SDK. A failed load is not cached: the next call tries again.
 */
export class LazyModel extends BaseLlm {
  private readonly load: ModelLoader;
  private pending: Promise<BaseLlm> | undefined;
  private built: BaseLlm | undefined;

  constructor(model: string, load: ModelLoader) {
    super({ model });
    this.load = load;
  }

  /** True once the real model was requested (loading or loaded). */
  get loaded(): boolean {
    return this.pending !== undefined;
  }

  /** The real model's answer once it is built; false before (the flow then passes a copy). */
  override get readsContentsOnly(): boolean {
    return this.built?.readsContentsOnly ?? false;
  }

  /** The real model, loading it on the first call. */
  getModel(): Promise<BaseLlm> {
    this.pending ??= this.load().then(
      (model) => {
        this.built = model;
        return model;
      },
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    return this.pending;
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options?: GenerateContentOptions,
  ): AsyncGenerator<LlmResponse, void, void> {
    const model = await this.getModel();
    yield* model.generateContentAsync(request, stream, options);
  }

  override async connect(request: LlmRequest, options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    return (await this.getModel()).connect(request, options);
  }

  /** Builds the real model now (importing its adapter and SDK) and warms it. */
  override async warmUp(): Promise<void> {
    await (await this.getModel()).warmUp();
  }

  /** Closes the real model if one was built; never loads one just to close it. */
  override async close(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.built = undefined;
    const model = await pending.catch(() => undefined);
    await model?.close();
  }
}

import { base64ToBytes, bytesToBase64 } from "../lib/base64.js";
import { downsample, floatToPcm16, pcm16ToFloat, pcmRate } from "../lib/pcm.js";
import type { AgentEvent } from "../lib/types.js";

/** Collects microphone samples in the audio thread and posts them to the page. */
const CAPTURE_WORKLET = `class Capture extends AudioWorkletProcessor {
  process(inputs) { const c = inputs[0] && inputs[0][0]; if (c) this.port.postMessage(c.slice(0)); return true; }
}
registerProcessor("agentkit-capture", Capture);`;

export interface LiveOptions {
  backendUrl: string;
  app: string;
  userId: string;
  sessionId: string;
  onEvent(event: AgentEvent): void;
  onClose(reason: string, clean: boolean): void;
}

export function liveSupported(): boolean {
  return (
    typeof WebSocket === "function" && typeof AudioWorkletNode === "function" && !!navigator.mediaDevices?.getUserMedia
  );
}

/** The WebSocket URL of /run_live for a backend URL (http-api.md 4.12, 6). */
export function liveUrl(backendUrl: string, app: string, userId: string, sessionId: string): string {
  const host = backendUrl ? backendUrl.replace(/^https?:\/\//, "") : location.host;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams({ app_name: app, user_id: userId, session_id: sessionId });
  return `${scheme}://${host}/run_live?${query.toString()}`;
}

/**
 * Audio per blob sent: a quarter second, counted in captured samples rather than by a timer, so
 * every blob holds the same length of audio however busy the page or the machine is.
 */
const FRAME_SECONDS = 0.25;

/**
 * One live conversation: microphone → 16 kHz PCM blobs of 250 ms over the socket; audio parts of
 * incoming events are queued and played; every event also goes to `onEvent`.
 */
export class LiveSession {
  private socket?: WebSocket;
  private context?: AudioContext;
  private stream?: MediaStream;
  private pending: Float32Array[] = [];
  private pendingSamples = 0;
  private playHead = 0;
  private playing: AudioBufferSourceNode[] = [];

  constructor(private readonly options: LiveOptions) {}

  async start(): Promise<void> {
    const { backendUrl, app, userId, sessionId } = this.options;
    this.stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true } });
    this.context = new AudioContext();
    const url = URL.createObjectURL(new Blob([CAPTURE_WORKLET], { type: "text/javascript" }));
    await this.context.audioWorklet.addModule(url);
    URL.revokeObjectURL(url);
    const source = this.context.createMediaStreamSource(this.stream);
    const node = new AudioWorkletNode(this.context, "agentkit-capture");
    node.port.onmessage = (e: MessageEvent<Float32Array>) => {
      this.pending.push(e.data);
      this.pendingSamples += e.data.length;
      // Until the socket opens the audio waits, and goes out in the first blob after.
      if (this.context && this.pendingSamples >= this.context.sampleRate * FRAME_SECONDS) this.flush();
    };
    source.connect(node);
    const socket = new WebSocket(liveUrl(backendUrl, app, userId, sessionId));
    this.socket = socket;
    socket.onmessage = (e) => this.receive(String(e.data));
    socket.onclose = (e) => {
      this.stop();
      this.options.onClose(e.reason || `closed (${e.code})`, e.code === 1000 || e.code === 1005);
    };
  }

  private flush(): void {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.pending.length === 0 || !this.context) return;
    const total = this.pending.reduce((n, c) => n + c.length, 0);
    const joined = new Float32Array(total);
    let offset = 0;
    for (const chunk of this.pending) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    this.pending = [];
    this.pendingSamples = 0;
    const pcm = floatToPcm16(downsample(joined, this.context.sampleRate, 16000));
    this.socket.send(JSON.stringify({ blob: { mime_type: "audio/pcm", data: bytesToBase64(pcm) } }));
  }

  private receive(text: string): void {
    let event: AgentEvent;
    try {
      event = JSON.parse(text) as AgentEvent;
    } catch {
      return;
    }
    if (event.interrupted) this.stopPlayback();
    for (const part of event.content?.parts ?? []) {
      if (part.inlineData?.mimeType.startsWith("audio/pcm"))
        this.play(part.inlineData.data, pcmRate(part.inlineData.mimeType));
    }
    this.options.onEvent(event);
  }

  private play(data: string, rate: number): void {
    if (!this.context) return;
    const samples = pcm16ToFloat(base64ToBytes(data));
    if (samples.length === 0) return;
    const buffer = this.context.createBuffer(1, samples.length, rate);
    buffer.copyToChannel(samples, 0);
    const node = this.context.createBufferSource();
    node.buffer = buffer;
    node.connect(this.context.destination);
    this.playHead = Math.max(this.playHead, this.context.currentTime);
    node.start(this.playHead);
    this.playHead += buffer.duration;
    this.playing.push(node);
    node.onended = () => (this.playing = this.playing.filter((n) => n !== node));
  }

  private stopPlayback(): void {
    for (const node of this.playing) node.stop();
    this.playing = [];
    this.playHead = 0;
  }

  stop(): void {
    this.stopPlayback();
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = undefined;
    void this.context?.close();
    this.context = undefined;
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close();
    this.socket = undefined;
  }
}

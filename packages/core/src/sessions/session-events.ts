import { copyWithRoom } from "../content/copy-with-room.js";
import type { Event } from "../events/event.js";
import type { Session } from "./session.js";
import { Stamp } from "./stamp.js";

/**
 * A session read over its store's list of frozen events (the log): the events it was read with
 * are the log's first `base`, and the caller's events appended through the session since are
 * `own`, each kept by the store as `log[base + i]`. `session.events` is built from these only
 * when something reads it; until then a run's readers use the log itself (`sessionEvents`), so
 * loading a session costs the same at 20,000 events as at 20 (decision 0007).
 */
interface EventsView {
  /** The store's list. A store only appends to it: it never removes, replaces or reorders. */
  readonly log: readonly Event[];
  readonly base: number;
  readonly own: Event[];
  /** `session.events` once built or assigned: from then on the only list. */
  list: Event[] | undefined;
}

/** The view of a session, in a private field stamped on the session object (see `Stamp`). */
class LoggedSession extends Stamp {
  #view: EventsView | undefined;

  static attach(session: Session, view: EventsView): void {
    (new LoggedSession(session) as LoggedSession).#view = view;
  }

  static viewOf(session: Session): EventsView | undefined {
    return #view in session ? (session as LoggedSession).#view : undefined;
  }
}

/**
 * A session whose events are `log` as it is now. For a store that keeps each session's events in
 * an array it only appends to (the in-memory store, the SQL stores' parsed-events cache); the
 * store must hand back the frozen copy it pushed (`storeEvent`'s `snapshot`) for the session to
 * keep following the log. The session is the plain data a store returns otherwise: `events` is
 * an own enumerable property (an accessor), built on first read and then the caller's to edit.
 * A short log (under `OVER_LOG_FROM` events) is simply copied into a plain session.
 */
export function sessionOverLog(fields: Omit<Session, "events">, log: readonly Event[]): Session {
  if (log.length < OVER_LOG_FROM) return plainSession(fields, copyWithRoom(log));
  const { id, appName, userId, state, lastUpdateTime } = fields;
  // Object.create, not a `__proto__` literal: the literal took 150 ns more per session.
  const session = Object.create(INSPECTED_AS_DATA) as Session;
  session.id = id;
  session.appName = appName;
  session.userId = userId;
  session.state = state;
  // One getter and setter for every session: V8 keeps an accessor's functions in the object's
  // hidden class, so closures made per session gave each session a class of its own (every
  // site that reads a session then went megamorphic: 40% more CPU per short invocation).
  Object.defineProperty(session, "events", EVENTS_ACCESSOR);
  // After `events`: the keys in the order of every other session object (JSON, inspection).
  session.lastUpdateTime = lastUpdateTime;
  LoggedSession.attach(session, { log, base: log.length, own: [], list: undefined });
  return session;
}

/** A session as plain data with `events` as given, its keys in the order of every session object. */
export function plainSession(fields: Omit<Session, "events">, events: Event[]): Session {
  const { id, appName, userId, state, lastUpdateTime } = fields;
  return { id, appName, userId, state, events, lastUpdateTime };
}

/**
 * A history shorter than this is copied instead: copying a few hundred references costs less than
 * defining the accessor (`Object.defineProperty`, about 100 ns), and most sessions are short.
 */
export const OVER_LOG_FROM = 256;

/** `session.events` of a session over a log: its own list, built on the first read. */
const EVENTS_ACCESSOR: PropertyDescriptor = {
  get(this: Session): Event[] {
    const view = LoggedSession.viewOf(this)!;
    return (view.list ??= listOf(view));
  },
  set(this: Session, list: Event[]): void {
    LoggedSession.viewOf(this)!.list = list;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The prototype of a session over a log: Node's `util.inspect` (and so `console.log`) would show
 * `events` as `[Getter/Setter]`; this shows the session as the plain data it stands for, without
 * building its list. Its own `constructor` is `Object`'s, as for a plain object.
 */
const INSPECTED_AS_DATA = {
  [Symbol.for("nodejs.util.inspect.custom")](
    this: Session,
    _depth: number,
    options: object,
    inspect: (value: unknown, options: object) => string,
  ): string {
    const { id, appName, userId, state, lastUpdateTime } = this;
    return inspect({ id, appName, userId, state, events: sessionEvents(this), lastUpdateTime }, options);
  },
};

/**
 * The session's events, for a reader that never edits them and, if it keeps the array, reads only
 * the events that were there when it asked (later appends may land at its end): while nothing has
 * built `session.events` and the log holds exactly the session's events, the log itself (the
 * events appended through the session appear as the store's frozen copies of them); otherwise
 * `session.events`.
 */
export function sessionEvents(session: Session): readonly Event[] {
  const view = LoggedSession.viewOf(session);
  if (view === undefined || view.list !== undefined) return session.events;
  return view.log.length === view.base + view.own.length ? view.log : session.events;
}

/**
 * Adds the caller's `event` to `session.events`. `snapshot` is the store's frozen copy of it,
 * when the store kept one: if the store pushed it onto the session's log right after the
 * session's events, the session goes on following the log without building its list.
 */
export function pushSessionEvent(session: Session, event: Event, snapshot: Event | undefined): void {
  const view = LoggedSession.viewOf(session);
  if (view !== undefined && view.list === undefined && snapshot !== undefined) {
    const at = view.base + view.own.length;
    if (view.log.length === at + 1 && view.log[at] === snapshot) {
      view.own.push(event);
      return;
    }
  }
  session.events.push(event);
}

/** The session's own copy: the log's part it was read with, then the caller's events. */
function listOf(view: EventsView): Event[] {
  const { log, base, own } = view;
  if (own.length === 0 && log.length === base) return copyWithRoom(log);
  const list = log.slice(0, base);
  for (const event of own) list.push(event);
  return list;
}

/**
 * A base class whose constructor returns the object it is given, so a subclass's private fields
 * are added to that object: a hidden, typed slot on an object created elsewhere (a caller's
 * event, a session literal). Cheaper than a `WeakMap` keyed by the object (a new key there cost
 * about 1 µs on Node 24: its identity hash, the table, the collector's ephemeron work), and
 * invisible to keys, symbols, `JSON`, spread, `structuredClone` and `util.inspect`. Only for
 * extensible objects.
 */
export class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the object given is what gets the subclass's field
    return target;
  }
}

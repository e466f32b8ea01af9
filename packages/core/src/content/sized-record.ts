/**
 * Empty plain objects with room for exactly their keys, for records that are kept long (the
 * in-memory store's frozen snapshots). V8 gives `{}` room for four properties and puts every
 * further key in a separate backing array, so a one-key record wastes three slots and a
 * seven-key one carries an extra array. An object made by `new` of a function gets room sized by
 * V8's slack tracking to what that function's objects use, so one function per key count makes
 * each size exact: about a fifth less memory per stored event, and fewer bytes for the young
 * collections to copy while the store keeps them.
 *
 * Each function's `prototype` is `Object.prototype`, so a record is a plain object in every
 * observable way: its prototype, `constructor`, `JSON.stringify`, `structuredClone`, inspection.
 * One `new` site per function (the switch) keeps each site monomorphic, which lets V8 allocate
 * inline; a site shared by all of them cost more than the memory saved.
 */
export function sizedRecord(keyCount: number): Record<string, unknown> {
  switch (keyCount) {
    case 1:
      return new R1();
    case 2:
      return new R2();
    case 3:
      return new R3();
    case 4:
      return new R4();
    case 5:
      return new R5();
    case 6:
      return new R6();
    case 7:
      return new R7();
    case 8:
      return new R8();
    case 9:
      return new R9();
    case 10:
      return new R10();
    case 11:
      return new R11();
    case 12:
      return new R12();
    default:
      return {};
  }
}

/**
 * `init` as a constructor of plain objects: its `prototype` becomes `Object.prototype`, so what
 * `new` makes is a plain object in every observable way, sized by V8's slack tracking to the
 * fields its objects get (in `init` or after it, until the tracking ends).
 */
export function plainRecordConstructor<T, A extends unknown[]>(
  init: (this: T, ...args: A) => void,
): new (
  ...args: A
) => T {
  (init as { prototype: object }).prototype = Object.prototype;
  return init as unknown as new (
    ...args: A
  ) => T;
}

function plainMaker(): new () => Record<string, unknown> {
  return plainRecordConstructor(function PlainRecord(): void {});
}

const R1 = plainMaker();
const R2 = plainMaker();
const R3 = plainMaker();
const R4 = plainMaker();
const R5 = plainMaker();
const R6 = plainMaker();
const R7 = plainMaker();
const R8 = plainMaker();
const R9 = plainMaker();
const R10 = plainMaker();
const R11 = plainMaker();
const R12 = plainMaker();

/**
 * An object made by a literal, `Object.create(null)` or a class-less prototype chain of one
 * level (what JSON-like data is). `Object.prototype` is compared first: nearly every value is
 * a literal, and that answer needs one prototype read instead of two.
 */
export function isPlainRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

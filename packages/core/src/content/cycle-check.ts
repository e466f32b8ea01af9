/**
 * For a `JSON.stringify` replacer (called with the holder as `this`): whether `value`, met under
 * `holder`, is inside itself (a cycle), as opposed to an object met again elsewhere, which is no
 * cycle (stored events share equal frozen parts) and is written again, as JSON.stringify does.
 * Keeps the objects from the root to the one being written; one checker per serialization.
 */
export function cycleChecker(): (holder: unknown, value: object) => boolean {
  const ancestors: object[] = [];
  return (holder, value) => {
    // Everything above the holder on the stack has been written.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== holder) ancestors.pop();
    if (ancestors.includes(value)) return true;
    ancestors.push(value);
    return false;
  };
}

/**
 * A queue that starts its items one per turn of the event loop, in the order given. Items that
 * arrive together (a message port hands over every message waiting, one after the other) would
 * otherwise all start before the loop gets back to its sockets: under a burst, each would wait on
 * the whole burst. `nextTurn` defers to the loop's next turn after its I/O (setImmediate).
 */
export function onePerTurn<T>(start: (item: T) => void, nextTurn: (run: () => void) => void = setImmediate): (item: T) => void {
  const queued: T[] = [];
  const startNext = () => {
    start(queued.shift()!);
    if (queued.length > 0) nextTurn(startNext);
  };
  return (item) => {
    // Only the first item of an idle queue asks for a turn; each turn asks for the next while any remain.
    if (queued.push(item) === 1) nextTurn(startNext);
  };
}

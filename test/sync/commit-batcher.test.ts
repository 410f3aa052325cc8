import { describe, expect, it } from 'vitest';
import { CommitBatcher } from '../../src/sync/commit-batcher.js';

/** A writer whose landings finish only when the test says so. */
function heldWriter() {
  const batches: string[][] = [];
  const releases: (() => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  const landed: string[] = [];
  const batcher = new CommitBatcher<string, string>({
    send: (items) => {
      batches.push(items);
      return new Promise((resolve, reject) => {
        releases.push(() => resolve(items));
        failures.push(reject);
      });
    },
    landed: (counts) => landed.push(...counts),
    batchRows: 10,
  });
  /** Let the `index`-th landing finish, then let the batcher react. */
  const land = async (index: number) => {
    releases[index]?.();
    await settle();
  };
  return { batcher, batches, landed, land, failures };
}

/** Let promise callbacks run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('CommitBatcher', () => {
  it('sends an item at once when no batch is landing', async () => {
    const { batcher, batches } = heldWriter();
    await batcher.add('a', 3);
    expect(batches).toEqual([['a']]);
  });

  it('sends what finished during a landing as one batch the moment it lands', async () => {
    const { batcher, batches, landed, land } = heldWriter();
    await batcher.add('a', 3);
    await batcher.add('b', 3);
    await batcher.add('c', 3);
    expect(batches).toEqual([['a']]);
    await land(0);
    expect(batches).toEqual([['a'], ['b', 'c']]);
    expect(landed).toEqual(['a']);
    await land(1);
    expect(landed).toEqual(['a', 'b', 'c']);
  });

  it('holds back add while a full batch waits behind a landing one', async () => {
    const { batcher, batches, land } = heldWriter();
    await batcher.add('a', 3);
    await batcher.add('b', 6);
    let added = false;
    const adding = batcher.add('c', 4).then(() => {
      added = true;
    });
    await settle();
    expect(added).toBe(false);
    await land(0);
    await adding;
    expect(added).toBe(true);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });

  it('takes waiting items up to the batch size into a batch, and the rest into the next', async () => {
    const { batcher, batches, land } = heldWriter();
    await batcher.add('a', 1);
    await batcher.add('b', 6);
    const waiting = [batcher.add('c', 6), batcher.add('d', 6)];
    await land(0);
    expect(batches).toEqual([['a'], ['b', 'c']]);
    await land(1);
    await Promise.all(waiting);
    expect(batches).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('flush waits until every item has landed', async () => {
    const { batcher, landed, land } = heldWriter();
    await batcher.add('a', 1);
    await batcher.add('b', 1);
    let flushed = false;
    const flushing = batcher.flush().then(() => {
      flushed = true;
    });
    await land(0);
    expect(flushed).toBe(false);
    await land(1);
    await flushing;
    expect(landed).toEqual(['a', 'b']);
  });

  it('reports a failed landing to the next caller and sends nothing more', async () => {
    const { batcher, batches, failures } = heldWriter();
    await batcher.add('a', 1);
    await batcher.add('b', 1);
    failures[0]?.(new Error('disk full'));
    await settle();
    await expect(batcher.add('c', 1)).rejects.toThrow('disk full');
    await expect(batcher.flush()).rejects.toThrow('disk full');
    expect(batches).toEqual([['a']]);
  });
});

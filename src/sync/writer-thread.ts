/**
 * The writer thread's entry point: lands batches of windows in the mirror on a connection of
 * its own, so SQLite's statements, commits and checkpoints run on the second core while the
 * main thread keeps the network busy. See {@link WindowWriter}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createMirrorWriters } from '../mirror/mirror-writers.js';
import { openMirror } from '../mirror/open-mirror.js';
import { writeWindow } from './window-commit.js';
import type { CommitReply, CommitRequest, WriterThreadData } from './writer-thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('writer-thread.js runs only as a worker thread');
const data = workerData as WriterThreadData;
const mirror = openMirror(
  data.file,
  data.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: data.busyTimeoutMs },
);
const writers = createMirrorWriters(mirror.db);

port.on('message', (request: CommitRequest | 'close') => {
  if (request === 'close') {
    void mirror.close().finally(() => port.close());
    return;
  }
  let reply: CommitReply;
  try {
    const counts = writers.atomically(() =>
      request.windows.map((window) => writeWindow(writers, request.runId, window)),
    );
    reply = { id: request.id, counts };
  } catch (error) {
    const { message, code } = error as { message?: string; code?: unknown };
    reply = {
      id: request.id,
      error: {
        message: message ?? String(error),
        ...(typeof code === 'string' ? { code } : {}),
      },
    };
  }
  port.postMessage(reply);
});

/**
 * A writer to `stream` (stdout, stderr) that stops writing, quietly, once the reader is gone:
 * `cardsync findings list | head -1` closes the pipe after one line, and what is left has
 * nowhere to go, which is no failure of the command. Later text is dropped and the command ends
 * with its own exit code. Any other write error (a file on a full disk: ENOSPC) goes to
 * `onError`, which throws it by default; later text is dropped too.
 *
 * @example
 * const stdout = pipeWriter(process.stdout);
 * stdout('one line\n');
 */
export function pipeWriter(
  stream: NodeJS.WritableStream,
  onError: (error: NodeJS.ErrnoException) => void = (error) => {
    throw error;
  },
): (text: string) => void {
  let readerGone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    const lost = readerGone;
    readerGone = true;
    // Writes made before the first EPIPE was reported fail on the destroyed stream.
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED' && !lost) onError(error);
  });
  return (text) => {
    if (!readerGone) stream.write(text);
  };
}

/**
 * A writer to `stream` (stdout, stderr) that stops writing, quietly, once the reader is gone:
 * `cardsync findings list | head -1` closes the pipe after one line, and what is left has
 * nowhere to go, which is no failure of the command. Later text is dropped and the command ends
 * with its own exit code. Any other write error stays unhandled, as before.
 *
 * @example
 * const stdout = pipeWriter(process.stdout);
 * stdout('one line\n');
 */
export function pipeWriter(stream: NodeJS.WritableStream): (text: string) => void {
  let readerGone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // Writes made before the first EPIPE was reported fail on the destroyed stream.
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    readerGone = true;
  });
  return (text) => {
    if (!readerGone) stream.write(text);
  };
}

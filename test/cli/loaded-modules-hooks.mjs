/**
 * Module hooks for loaded-modules-probe.mjs: they run on Node's hooks thread and append the URL
 * of every module to the file given at registration, synchronously and before the module runs,
 * so the list is complete however the process ends.
 */
import { appendFileSync } from 'node:fs';

let file = '';

/** Receives `{ file }` from `register`. */
export function initialize(data) {
  file = data.file;
}

/** Record `url`, then load it as usual. */
export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}

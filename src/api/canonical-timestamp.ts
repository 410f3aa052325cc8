/**
 * Whether a `createdAt`, already checked against the contract's `Timestamp` pattern, is written
 * the mirror's way (`YYYY-MM-DDTHH:MM:SS.sssZ`): the service's own form, and so every record of
 * a sync, so the test must cost next to nothing. Any other form goes through `utcInstant`.
 */
export function isCanonicalTimestamp(text: string): boolean {
  return text.length === 24 && text.charCodeAt(19) === 46 /* . */ && text.charCodeAt(23) === 90;
}

/** Why fault rules were refused: a rule breaks the format, or a profile file cannot be read. */
export type FaultConfigErrorCode = 'FAULT_RULE_INVALID' | 'FAULT_PROFILE_UNREADABLE';

/** Fault rules or a fault profile that cannot be used; each problem names its field. */
export class FaultConfigError extends Error {
  readonly code: FaultConfigErrorCode;
  /** One line per problem, each starting with the field it is about (`rules[1].status ...`). */
  readonly problems: readonly string[];

  constructor(
    code: FaultConfigErrorCode,
    problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(problems.join('; '), options);
    this.name = 'FaultConfigError';
    this.code = code;
    this.problems = problems;
  }
}

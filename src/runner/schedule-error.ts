/** Why a schedule cannot start. */
export type ScheduleErrorCode = 'SCHEDULE_CRON_INVALID' | 'SCHEDULE_TIMEZONE_INVALID';

/** A cron expression or time zone that cannot be used; callers branch on `code`. */
export class ScheduleError extends Error {
  readonly code: ScheduleErrorCode;

  constructor(code: ScheduleErrorCode, message: string) {
    super(message);
    this.name = 'ScheduleError';
    this.code = code;
  }
}

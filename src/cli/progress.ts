import type { Output } from './output.js';

/** Characters of the bar itself, whatever the terminal's width. */
export const PROGRESS_BAR_WIDTH = 24;

/** `label [██████░░░░░░] 6/12` */
export function renderProgress(label: string, done: number, total: number, width = PROGRESS_BAR_WIDTH): string {
  const filled = total === 0 ? width : Math.round((Math.min(done, total) / total) * width);
  return `${label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${done}/${total}`;
}

/**
 * A progress bar on stderr, shown only when stderr is a terminal (a piped or logged run gets
 * the result lines alone). Lines printed through the same {@link Output} appear above it.
 */
export class ProgressBar {
  private done = 0;

  constructor(
    private readonly output: Output,
    private readonly label: string,
    private readonly total: number,
  ) {
    output.status(renderProgress(label, 0, total));
  }

  advance(): void {
    this.done += 1;
    this.output.status(renderProgress(this.label, this.done, this.total));
  }

  finish(): void {
    this.output.clearStatus();
  }
}

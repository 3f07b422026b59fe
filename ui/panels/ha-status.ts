/**
 * The HA status overlay (`a`): what `atcasim status` prints (chassis/runtime/status-snapshot.ts
 * formatStatus) — every share's owner and members, alarms with their age, sessions lost by age,
 * out of service planned or not — centred over the shelf, refreshed with every frame, closed by
 * any key.
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';

/** The overlay. */
export class HaStatusPanel {
  private readonly box: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.box = blessed.box({
      parent: screen,
      top: 'center',
      left: 'center',
      width: 82,
      height: 20,
      tags: false,
      border: { type: 'line' },
      hidden: true,
    });
  }

  /**
   * Shows `text` (lines of at most 80 columns), or hides the overlay when undefined.
   * @param width terminal columns, @param height terminal rows
   */
  update(text: string | undefined, width: number, height: number): void {
    if (text === undefined) {
      this.box.hide();
      return;
    }
    const lines = text.replace(/\n$/, '').split('\n');
    this.box.width = Math.min(width, 82);
    this.box.height = Math.min(height, lines.length + 2);
    this.box.setContent(lines.join('\n'));
    this.box.show();
    this.box.setFront();
  }
}

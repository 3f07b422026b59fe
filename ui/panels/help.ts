/**
 * The help overlay (`?`): the key list of the view model, centred, closed by any key.
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { ViewModel } from '../view-model.ts';
import { linesMarkup } from './tags.ts';

/** The help overlay. */
export class HelpPanel {
  private readonly box: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.box = blessed.box({
      parent: screen,
      top: 'center',
      left: 'center',
      width: 72,
      height: 15,
      tags: true,
      border: { type: 'line' },
      padding: { left: 1, right: 1 },
      hidden: true,
    });
  }

  /** Shows or hides the overlay. */
  update(vm: ViewModel): void {
    if (!vm.help) {
      this.box.hide();
      return;
    }
    this.box.width = Math.min(vm.layout.width, 76);
    this.box.height = Math.min(vm.layout.height, vm.help.length + 2);
    this.box.setContent(linesMarkup(vm.help));
    this.box.show();
    this.box.setFront();
  }
}

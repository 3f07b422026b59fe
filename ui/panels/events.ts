/**
 * The event pane: the newest SEL records (hot-swap transitions, threshold crossings, faults, role
 * changes) with their SEL time, oldest at the top, newest at the bottom.
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { ViewModel } from '../view-model.ts';
import { lineMarkup, linesMarkup } from './tags.ts';

/** The event pane. */
export class EventsPanel {
  private readonly box: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.box = blessed.box({ parent: screen, top: 11, left: '50%', height: 10, width: '50%', tags: true, wrap: false });
  }

  /** Shows the events at the view model's layout. */
  update(vm: ViewModel): void {
    const l = vm.layout;
    this.box.top = l.paneTop;
    this.box.left = l.detailWidth;
    this.box.width = l.eventsWidth;
    this.box.height = l.paneHeight;
    this.box.setContent(`${lineMarkup(vm.eventsTitle)}\n${linesMarkup(vm.events)}`);
  }
}

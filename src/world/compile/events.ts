/** Scheduled events: a known package and collection, and the module of an event that runs one. */
import type { PathSegment } from '../../file-format/json-path';
import type { ScheduledEventDef } from '../types';
import type { CheckContext } from './context';
import { modulePath } from './load-modules';

export function checkEvents(ctx: CheckContext, events: ScheduledEventDef[], at: PathSegment[]): void {
  events.forEach((event, i) => {
    const eventAt = [...at, i];
    if (ctx.packageId(event.packageId, [...eventAt, 'packageId']) && event.apply)
      ctx.collection(event.packageId, event.apply.collection, [...eventAt, 'apply', 'collection']);
    if (event.module !== undefined) {
      const file = modulePath(ctx, event.module, [...eventAt, 'module']);
      if (file) {
        ctx.pendingModules.push({
          at: [...eventAt, event.export !== undefined ? 'export' : 'module'],
          file,
          candidates: [event.export ?? 'default'],
          done: (handler) => ctx.eventHandlers.set(event, handler),
        });
      }
    }
  });
}

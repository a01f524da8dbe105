/**
 * After the routers: a known path with another method is 405 with `Allow`; anything else is 404.
 * Both bodies are one line of text.
 */
import type { RouterMiddleware } from '@koa/router';
import { plain } from '../plain.js';
import type { PipelineState } from '../state.js';

export function unrouted(): RouterMiddleware<PipelineState> {
  return function unrouted(ctx) {
    // The routers leave on the context the layers whose path matched (none of them took the method).
    const layers = ctx.matched;
    if (layers === undefined || layers.length === 0) return plain(ctx, 404);
    ctx.set('Allow', allowedMethods(layers));
    plain(ctx, 405);
  };
}

function allowedMethods(layers: readonly { readonly methods: readonly string[] }[]): string {
  return [...new Set(layers.flatMap((layer) => layer.methods))].join(', ');
}

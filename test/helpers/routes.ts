import type { Express } from 'express';

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
};

function routesOf(stack: Layer[], prefix: string): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const { path, methods } = layer.route;
      return Object.keys(methods).map((method) => `${method.toUpperCase()} ${prefix}${path}`);
    }
    if (!Array.isArray(layer.handle?.stack)) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return routesOf(layer.handle.stack, `${prefix}${mount}`);
  });
}

/** Every `METHOD /path` the app's router answers, express's `:param` kept as it is. */
export function routerRoutes(app: Express): string[] {
  return routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
}

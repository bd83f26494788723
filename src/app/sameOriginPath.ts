// Config values that name files the tab fetches (teacher.checkpoint) must stay inside this app's own origin: a
// shared link must not make the worker fetch weights from another site (which would also tell that site the link
// was opened). A value is a path under the app's public/ folder; an absolute URL, a scheme (http:, javascript:,
// data:, …), a protocol-relative "//host" or a backslash (which URL parsing turns into "/") is refused, naming the
// key. The tab-side wall until the core's own config check covers it; the worker checks the resolved URL again.
import type { ExperimentConfig } from '../core/experiment/config';

/** The config keys whose values the tab fetches from its own server. */
const PATH_KEYS = [['teacher.checkpoint', (c: ExperimentConfig) => c.teacher.checkpoint]] as const;

/** Why `value` (of config key `key`) is not a path inside this origin, or null when it is one. */
export function offOriginPathError(key: string, value: string): string | null {
  const v = value.trim();
  if (v === '') return null;
  const problem = /^[a-z][a-z0-9+.-]*:/i.test(v)
    ? `a URL with a scheme ("${v.slice(0, v.indexOf(':') + 1)}")`
    : v.startsWith('//')
      ? 'a URL of another host ("//…")'
      : v.includes('\\')
        ? 'a backslash'
        : null;
  return problem === null
    ? null
    : `${key}: expected a path inside this app (e.g. teachers/shell), got ${problem}: nothing is fetched from elsewhere`;
}

/** Every such problem of a resolved config, one message per key. */
export function offOriginConfigErrors(config: ExperimentConfig): string[] {
  return PATH_KEYS.map(([key, read]) => offOriginPathError(key, read(config))).filter((m): m is string => m !== null);
}

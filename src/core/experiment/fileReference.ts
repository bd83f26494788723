// The origin policy of config values that name files (teacher.checkpoint; preset names and a preset's "extends"):
// a value names a file of this app, never a place elsewhere. In the tab it is a relative path inside the app's own
// origin (fetched from public/); in the CLI a local path (relative to public/, or absolute). An absolute URL
// ("http://host/x"), a protocol-relative one ("//host/x", "\\host\x": browsers read "\" as "/"), any scheme
// ("javascript:", "data:", "file:", "blob:"…) and control characters (which a URL parser strips, so that
// "java\tscript:" reads as "javascript:") are refused, in both. One function, used by the config schema (CLI and
// tab alike: a link's `set=teacher.checkpoint=…` is refused there) and by the tab's teacher loader.

/** Where the value is used: the tab (inside the app's origin) or the CLI (the local disk). */
export type FileReferenceScope = 'app' | 'local';

/** A URL scheme at the start ("http:", "javascript:"; "c:" too, see WINDOWS_DRIVE). */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** A Windows drive letter ("C:\teachers", "C:/teachers"): a local path, not a scheme, in the CLI. */
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;
/** One path segment inside the app: letters, digits and . _ ~ - (no "%" escapes, "?" queries or "#" fragments). */
const APP_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/**
 * What is wrong with `value` as a file reference in `scope`, in words without the value (the caller names the key
 * and quotes the value), or null when it is acceptable. The empty string (no file) is acceptable.
 */
export function fileReferenceProblem(value: string, scope: FileReferenceScope): string | null {
  if (value === '') return null;
  const expected =
    scope === 'app' ? 'expected a relative path inside the app, e.g. teachers/shell' : 'expected a file path';
  // C0 controls, DEL and the C1 block: never part of a file name a user means, and stripped by URL parsers.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return `${expected}, not control characters`;
  const trimmed = value.trim();
  if (/^[\\/]{2}/.test(trimmed)) return `${expected}, not a URL of another host: nothing is fetched from elsewhere`;
  if (SCHEME.test(trimmed) && !(scope === 'local' && WINDOWS_DRIVE.test(trimmed))) {
    return `${expected}, not a URL or a scheme (${trimmed.slice(0, trimmed.indexOf(':') + 1).slice(0, 20)}): nothing is fetched from elsewhere`;
  }
  if (scope === 'local') return null;
  if (/^[\\/]/.test(trimmed)) return `${expected}, not an absolute path`;
  for (const segment of value.replace(/\/$/, '').split('/')) {
    if (segment === '.' || segment === '..') return `${expected}, without "${segment}" segments`;
    if (!APP_SEGMENT.test(segment)) return `${expected} (letters, digits, ".", "_", "~" and "-" between "/")`;
  }
  return null;
}

/** The same as a thrown message naming the key: "teacher.checkpoint: expected … (got "http://x")". */
export function fileReferenceMessage(key: string, value: string, scope: FileReferenceScope): string | null {
  const problem = fileReferenceProblem(value, scope);
  if (problem === null) return null;
  return `${key}: ${problem} (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
}

/** The config keys whose values name files, and how to read each from a resolved config. */
/** The part of an ExperimentConfig that names files (a structural type: config.ts itself imports this module). */
interface FileNamingConfig {
  teacher: { checkpoint: string };
}

const FILE_KEYS = [['teacher.checkpoint', (c: FileNamingConfig) => c.teacher.checkpoint]] as const;

/** Every file reference of a resolved config that `scope` does not accept, one message per key (the tab's form,
 * link and queue check what they will fetch with this). */
export function configFileReferenceErrors(config: FileNamingConfig, scope: FileReferenceScope): string[] {
  return FILE_KEYS.map(([key, read]) => fileReferenceMessage(key, read(config), scope)).filter(
    (m): m is string => m !== null,
  );
}

// The shipped "where it helps" cells (public/outcomes/where-it-helps.json, generated from the committed held-out
// pages by cli/outcomeFiles.ts), fetched from the app's own server once per page and validated.
import { HELPS_MAP_FILE, helpsMapSchema, type HelpsMap } from '../../core/experiment/helpsMap';
import { appRoot } from '../appRoot';

let shipped: Promise<HelpsMap> | null = null;

export function shippedHelpsMap(): Promise<HelpsMap> {
  const url = `${appRoot().href}${HELPS_MAP_FILE}`;
  shipped ??= fetch(url)
    .then(async (res) => {
      if (!res.ok) throw new Error(`${url}: the server answered ${res.status}`);
      const parsed = helpsMapSchema.safeParse(await res.json());
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(`${url}: ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? '?'}`);
      }
      return parsed.data;
    })
    .catch((e: unknown) => {
      shipped = null;
      throw e;
    });
  return shipped;
}

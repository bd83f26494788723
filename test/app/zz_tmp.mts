import { startAppServer } from './appServer';
import { launchChromium } from '../support/chromium';
const s = await startAppServer();
const b = await launchChromium();
const p = await b.newPage();
p.on('pageerror', (e) => console.log('PAGEERROR', e.message));
await p.goto(s.url + '#train');
await p.getByRole('option', { name: 'smoke' }).waitFor({ state: 'attached', timeout: 30000 });
await p.getByLabel('preset', { exact: true }).selectOption('retire-shell');
await p.getByLabel('backend', { exact: true }).selectOption('wasm');
await p.getByRole('button', { name: 'Start' }).click();
const t0 = Date.now();
for (let i = 0; i < 200; i++) {
  await p.waitForTimeout(3000);
  const st = await p.getByTestId('run-status').textContent();
  const pr = (await p.getByTestId('run-progress').allTextContents())[0];
  if (i % 5 === 0) console.log(((Date.now() - t0) / 1000).toFixed(0), st, pr);
  if (['completed', 'failed', 'stopped'].includes(st ?? '')) break;
}
console.log(await p.locator('.run-log').textContent());
console.log(await p.locator('section[aria-label="run summary"]').allTextContents());
await p.screenshot({ path: '/tmp/train-shell.png', fullPage: true });
await b.close(); await s.close();

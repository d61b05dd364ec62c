// Opens a paf HTML report in headless Debian chromium (through playwright-core, no browser of its
// own) and checks what a reader sees: every flow-set row renders, a row's dataflow is hidden until
// the row is clicked and then shows its chain, nothing is wider than the window, the page asks for
// nothing over the network and logs no error. Takes a screenshot of the window (1280x900) with the first flow-set open.
// Usage: node check-report.mjs REPORT.html EXPECTED_ROWS SCREENSHOT.png
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [report, expectedRows, screenshot] = process.argv.slice(2);
if (!report || !expectedRows || !screenshot) {
  console.error('usage: node check-report.mjs REPORT.html EXPECTED_ROWS SCREENSHOT.png');
  process.exit(2);
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

const profile = mkdtempSync(join(tmpdir(), 'paf-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = context.pages()[0] || await context.newPage();
  const requests = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(resolve(report)).href, { waitUntil: 'load' });

  const rows = page.locator('details.fs > summary');
  const count = await rows.count();
  check(count === Number(expectedRows), `expected ${expectedRows} flow-set rows, found ${count}`);
  for (let i = 0; i < count; i++) {
    const box = await rows.nth(i).boundingBox();
    check(box && box.height > 8 && box.width > 300, `row ${i + 1} is not drawn (${JSON.stringify(box)})`);
  }
  const wide = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(await wide() <= 0, `the page is ${await wide()} px wider than the window`);
  const first = page.locator('#fs-1');
  const chain = first.locator('ol.chain > li');
  check(!(await chain.first().isVisible()), 'the first flow-set shows its chain before it is clicked');
  await first.locator('summary').click();
  check(await first.evaluate((d) => d.open), 'clicking the first row does not open it');
  const steps = await chain.count();
  check(steps >= 2, `the open flow-set shows ${steps} chain entries, expected the steps and the crash`);
  check(await chain.first().isVisible(), 'the chain is not visible after the click');
  check(await first.locator('li.crash').isVisible(), 'the crash use is not shown');
  check(await wide() <= 0, `the open flow-set makes the page ${await wide()} px wider than the window`);
  const text = await first.locator('.body').innerText();
  check(/Crash variable/.test(text) && /Theta/.test(text), 'the open flow-set lacks its variables or theta');
  const code = await first.locator('pre.code').count();
  console.log(`rows: ${count}; first flow-set: ${steps} chain entries, ${code} source snippets`);
  await page.screenshot({ path: screenshot });
  check(requests.length === 0, `network requests: ${requests.join(', ')}`);
  check(errors.length === 0, `console errors: ${errors.join('; ')}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL: ${f}`);
  process.exit(1);
}
console.log('html report: ok');

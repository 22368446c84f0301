// Looks at the Temporal Web UI of `interpreter dev` in headless Chromium and
// checks what it shows of one thread and its first turn. Driven by
// e2e/webui/webui_test.go; one JSON argument:
//
//   {"ui": "http://127.0.0.1:8233", "namespace": "default",
//    "chromium": "/usr/bin/chromium", "shots": "/tmp/dir",
//    "thread": "<thread id>", "turn": "<thread id>/turn-1",
//    "list": ["..."],      // texts the workflow list must show
//    "header": ["..."],    // texts the turn's page header must show
//    "timeline": ["..."],  // labels the turn's Timeline must show
//    "history": ["..."],   // texts the turn's Event History must show
//    "metadata": ["..."]}  // texts the turn's User Metadata tab must show
//
// Each page is screenshotted into shots; the first missing text fails the
// run (exit 1) with what the page did show. Labels rendered as markdown sit
// in iframes (/render?content=...), so a page's text is its own plus its
// frames'.
import puppeteer from 'puppeteer-core';
import path from 'node:path';

const want = JSON.parse(process.argv[2]);
const timeoutMs = want.timeout_ms || 30000;

const browser = await puppeteer.launch({
  executablePath: want.chromium,
  headless: true,
  // --no-sandbox: CI runs as root, where Chromium's own sandbox refuses.
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  defaultViewport: { width: 1600, height: 1100 },
});

const problems = [];

async function pageText(page) {
  const parts = [await page.evaluate(() => document.body.innerText)];
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    try {
      parts.push(await f.evaluate(() => document.body ? document.body.innerText : ''));
    } catch {
      // a frame that went away while we read; the next poll reads again
    }
  }
  return parts.join('\n');
}

// expect waits until every text is on the page (the UI loads and decodes
// in steps), then screenshots it; a text still missing at the deadline is
// a problem. reload: the page does not refresh itself (the list, which
// visibility fills a moment after a workflow changes), so reload it
// between looks.
async function expect(page, name, texts, reload = false) {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  let missing = texts;
  while (Date.now() < deadline) {
    text = await pageText(page);
    missing = texts.filter((t) => !text.includes(t));
    if (missing.length === 0) break;
    await new Promise((r) => setTimeout(r, reload ? 1000 : 250));
    if (reload) await page.reload({ waitUntil: 'networkidle0', timeout: timeoutMs });
  }
  await page.screenshot({ path: path.join(want.shots, name + '.png') });
  for (const m of missing) {
    problems.push(`${name}: ${JSON.stringify(m)} not shown`);
  }
  if (missing.length) {
    problems.push(`${name} showed:\n${text.slice(0, 4000)}`);
  }
}

async function open(url) {
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: 'networkidle0', timeout: timeoutMs });
  return page;
}

try {
  const ns = `${want.ui}/namespaces/${encodeURIComponent(want.namespace)}`;
  const list = await open(`${ns}/workflows`);
  await expect(list, 'list', [want.thread, want.turn, ...(want.list || [])], true);

  // The turn's page: the UI redirects to its latest run's Timeline.
  const turn = await open(`${ns}/workflows/${encodeURIComponent(want.turn)}`);
  await expect(turn, 'turn-timeline', [...(want.header || []), ...(want.timeline || [])]);
  const base = turn.url().replace(/\/timeline.*$/, '');

  const history = await open(`${base}/history`);
  await expect(history, 'turn-history', want.history || []);

  const meta = await open(`${base}/user-metadata`);
  await expect(meta, 'turn-user-metadata', want.metadata || []);
} catch (err) {
  problems.push(`browser: ${err.stack || err}`);
} finally {
  await browser.close();
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`ok: list, timeline, history and user metadata checked; screenshots in ${want.shots}`);

// Print the npm generators' invoices from <cache>/jobs.json (written by make.py).
//   NODE_PATH=<cache>/node/node_modules node render.mjs <cache>
// Each job: {id, generator, out, ...payload} (or {..., payload}). The libraries are used as their authors
// ship them.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const cache = process.argv[2];
const require = createRequire(path.join(cache, "node", "node_modules", "_"));
const jobs = JSON.parse(fs.readFileSync(path.join(cache, "jobs.json"), "utf8"));

const generators = {
  // jspdf-invoice-template-nodejs (jsPDF): the props object, labels included
  "jspdf-invoice-template": async (job) => {
    const tmpl = require("jspdf-invoice-template-nodejs").default;
    const { id, generator, out, ...props } = job;
    const res = tmpl(props);
    fs.writeFileSync(out, Buffer.from(res.arrayBuffer));
  },
  // @h1dd3nsn1p3r/pdf-invoice (pdfmake): payload + config.string labels
  "pdf-invoice": async (job) => {
    const { PDFInvoice } = require("@h1dd3nsn1p3r/pdf-invoice");
    const payload = { ...job.payload, invoice: { ...job.payload.invoice, path: job.out } };
    await new PDFInvoice(payload, job.config).create();
  },
  // @htmlbricks/hb-page-invoice (Svelte web component): a page with the component and the hb-table it
  // needs, loaded from node_modules (else it fetches it from a CDN), printed by headless Chromium
  "hb-page-invoice": async (job) => {
    const attr = (o) => JSON.stringify(o).replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/</g, "&lt;");
    const script = (name) => pathToFileURL(require.resolve(`@htmlbricks/${name}`)).href;
    const html = `<!DOCTYPE html><html lang="it"><head><meta charset="utf-8">
<script src="${script("hb-table")}"></script><script src="${script("hb-page-invoice")}"></script></head>
<body><hb-page-invoice printer="yes" headers='${attr(job.payload.headers)}' items='${attr(job.payload.items)}'>
</hb-page-invoice></body></html>`;
    const page = path.join(path.dirname(job.out), "html", `${job.id}.html`);
    fs.mkdirSync(path.dirname(page), { recursive: true });
    fs.writeFileSync(page, html);
    execFileSync("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
      `--print-to-pdf=${job.out}`, "--no-pdf-header-footer", pathToFileURL(page).href], { stdio: "ignore" });
  },
  // microinvoice (PDFKit): its options' data (every label ours); the document as a stream, written out
  // whole before the next job (its generate(path) resolves before the file is flushed)
  microinvoice: async (job) => {
    const MicroInvoice = require("microinvoice");
    const doc = new MicroInvoice({ data: job.payload.data }).generate();
    await new Promise((resolve, reject) => {
      const file = fs.createWriteStream(job.out);
      file.on("finish", resolve).on("error", reject);
      doc.pipe(file);
    });
  },
};

for (const job of jobs) {
  const fn = generators[job.generator];
  await fn(job);
  console.log(`${job.id}: ${job.out}`);
}

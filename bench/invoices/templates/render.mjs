// Print the npm generators' invoices from <cache>/jobs.json (written by make.py).
//   NODE_PATH=<cache>/node/node_modules node render.mjs <cache>
// Each job: {id, generator, out, ...payload}. The libraries are used as their authors ship them.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

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
};

for (const job of jobs) {
  const fn = generators[job.generator];
  await fn(job);
  console.log(`${job.id}: ${job.out}`);
}

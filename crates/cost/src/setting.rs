//! A root runway's `catalogue:` file: the catalogue it gives, or why it cannot be used. The
//! caller reads the file (the CLI from disk, the language server from the editor first).

use runway_schema::{CatalogueSetting, Code, Diagnostic, Unread, summary};

use crate::Catalogue;

impl Catalogue {
    /// This catalogue with the file a root's `catalogue:` setting names laid over it. `file`
    /// is the file's path as diagnostics show it; `text` is its text, or why it was not read.
    /// `Err` holds a `catalogue-file` diagnostic at the setting, then the file's own; or one
    /// `outside-root` diagnostic when the path leads outside the root's folder.
    pub fn with_setting(
        &self,
        setting: &CatalogueSetting,
        file: &str,
        text: Result<&str, Unread>,
    ) -> Result<Catalogue, Vec<Diagnostic>> {
        let at = |code: Code, message: String, help: &str| {
            Diagnostic::error(code, setting.location.clone(), "catalogue", message).with_help(help)
        };
        let unreadable = |why: &str| {
            at(
                Code::CatalogueFile,
                format!("catalogue file `{}` cannot be read ({file}: {why})", setting.path),
                "the path is relative to the root runway's folder; write the file with \
                 `runway catalogue import --region <R> --out <FILE>`, or fix the path",
            )
        };
        let text = text.map_err(|unread| {
            vec![match unread {
                Unread::Missing => unreadable("no such file"),
                Unread::Failed(why) => unreadable(&why),
                Unread::Outside(why) => at(
                    Code::OutsideRoot,
                    format!("catalogue file `{}` is not read: {why}", setting.path),
                    "runway reads nothing outside the root runway's folder: put the catalogue \
                     file there instead of a link to it",
                ),
            }]
        })?;
        match Catalogue::parse(file, text) {
            Ok(user) => Ok(self.extended_with(&user)),
            Err(mut diags) => {
                let message = format!("catalogue file `{}` is invalid ({})", setting.path, summary(&diags));
                diags.insert(
                    0,
                    at(
                        Code::CatalogueFile,
                        message,
                        "fix the catalogue file (its diagnostics follow; format: docs/catalogue.md)",
                    ),
                );
                Err(diags)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runway_schema::Location;

    fn setting() -> CatalogueSetting {
        let location = Location { file: "runway.yaml".into(), line: 3, column: 12, ..Default::default() };
        CatalogueSetting { path: "prices.yaml".into(), location }
    }

    #[test]
    fn a_setting_lays_its_file_over_the_catalogue_or_says_why_not() {
        let builtin = Catalogue::builtin();
        let text = "regions:\n  us-east-1:\n    s3-standard: { unit: GB-month, price: \"0.021\", source: \"contract\", seen: \"2026-11-30\" }\n";
        let cat = builtin.with_setting(&setting(), "prices.yaml", Ok(text)).unwrap();
        let entry = &cat.price_table("us-east-1").unwrap()["s3-standard"];
        assert!(matches!(&entry.status, crate::PriceStatus::Priced { source, .. } if source == "contract"));

        let missing = builtin
            .with_setting(&setting(), "prices.yaml", Err(Unread::Failed("not found".into())))
            .unwrap_err();
        assert_eq!((missing.len(), missing[0].code, missing[0].location.line), (1, Code::CatalogueFile, 3));
        assert!(missing[0].message.contains("prices.yaml: not found"), "{}", missing[0].message);

        let invalid = builtin.with_setting(&setting(), "prices.yaml", Ok("regions: [")).unwrap_err();
        assert_eq!(invalid[0].code, Code::CatalogueFile);
        assert!(invalid.len() > 1 && invalid[1].location.file == "prices.yaml", "{invalid:#?}");
    }
}

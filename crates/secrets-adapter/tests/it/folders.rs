//! Deleting folders (`Client::delete_folder`): never while they hold a secret or a folder, an
//! absent one (or one under an absent parent) is done, the root is refused before any call.
#![allow(missing_docs)]

use secrets_adapter::{FolderDeletion, SecretString};

use crate::common::Target;

#[tokio::test(flavor = "current_thread")]
async fn a_folder_is_deleted_once_empty_and_an_absent_one_is_done() {
    let t = Target::new();
    let c = &t.client;
    let (project, env) = (t.project.as_str(), "dev");
    let top = format!("{}/previews/pr-7", t.root);
    let inner = format!("{top}/runtime/metabase");
    c.ensure_folder(project, env, &inner).await.unwrap();
    let value = SecretString::from("folder-test-canary-5b1c");
    c.create_secret(project, env, &inner, "MB_KEY", &value).await.unwrap();

    // Holding a secret, or a folder: refused, and nothing is removed.
    assert_eq!(c.delete_folder(project, env, &inner).await.unwrap(), FolderDeletion::NotEmpty);
    assert_eq!(c.delete_folder(project, env, &top).await.unwrap(), FolderDeletion::NotEmpty);
    assert!(c.secret_meta(project, env, &inner, "MB_KEY").await.unwrap().is_some());

    // Emptied, deepest first: each is deleted, then absent when asked again.
    assert!(c.delete_secret(project, env, &inner, "MB_KEY").await.unwrap());
    for folder in [inner.clone(), format!("{top}/runtime"), top.clone()] {
        assert_eq!(
            c.delete_folder(project, env, &folder).await.unwrap(),
            FolderDeletion::Deleted,
            "{folder}"
        );
        assert!(!c.folder_exists(project, env, &folder).await.unwrap(), "{folder}");
        assert_eq!(c.delete_folder(project, env, &folder).await.unwrap(), FolderDeletion::Absent, "{folder}");
    }
    // Under a parent that is gone too.
    assert_eq!(c.delete_folder(project, env, &inner).await.unwrap(), FolderDeletion::Absent);
    assert!(c.folder_exists(project, env, &t.root).await.unwrap(), "the test's own root is kept");

    // The root: refused before any call, whatever it holds.
    let before = t.contract().map(|s| s.requests().len());
    let refused = c.delete_folder(project, env, "/").await.unwrap_err();
    assert!(refused.to_string().contains("never deleted"), "{refused}");
    assert_eq!(t.contract().map(|s| s.requests().len()), before);
}

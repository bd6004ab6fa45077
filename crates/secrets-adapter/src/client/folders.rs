//! Deleting a folder (v2): `DELETE /api/v2/folders/{folderIdOrName}` with a JSON body naming
//! the project, the environment and the folder's parent `path`, as Infisical's API reference
//! ("Folders: Delete", <https://infisical.com/docs/api-reference/endpoints/folders/delete>)
//! and its server (`backend/src/server/routes/v2/secret-folder-router.ts`,
//! `services/secret-folder/secret-folder-service.ts`, `deleteFolder`) define it: the folder is
//! found by name (else by id) under the parent; 404 when the parent or the folder is missing;
//! 400 "contains resources" when it holds a secret, a dynamic secret or a folder and
//! `forceDelete` is not set. runway never sets `forceDelete`: it deletes only what it emptied.

use reqwest::Method;
use serde_json::json;
use zeroize::Zeroizing;

use super::{Client, split_folder};
use crate::error::Error;

/// What deleting a folder found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderDeletion {
    /// It was there, empty, and is deleted.
    Deleted,
    /// It (or its parent) was not there: nothing to do.
    Absent,
    /// Infisical refused: it still holds a secret or a folder (left as it is).
    NotEmpty,
}

impl Client {
    /// Deletes an empty folder (absolute path, e.g. `/previews/pr-7/runtime`); an absent one is
    /// [`FolderDeletion::Absent`], one still holding anything [`FolderDeletion::NotEmpty`]. The
    /// root is never deleted (refused before any call).
    pub async fn delete_folder(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
    ) -> Result<FolderDeletion, Error> {
        if folder.trim_end_matches('/').is_empty() {
            return Err(Error::Config(format!("the root folder of `{environment}` is never deleted")));
        }
        let (parent, name) = split_folder(folder);
        let op = format!("delete folder {environment}:{folder}");
        let body = Zeroizing::new(
            serde_json::to_vec(&json!({
                "projectId": project_id,
                "environment": environment,
                "path": parent,
                "forceDelete": false,
            }))
            .map_err(|source| Error::Encode { source })?,
        );
        // Names are validated to `[A-Za-z0-9_-]` (Infisical's folder names), so no escaping.
        let path = format!("/api/v2/folders/{name}");
        match self.call(&op, Method::DELETE, &path, &[], Some(&body)).await {
            Ok(_) => Ok(FolderDeletion::Deleted),
            Err(Error::Api { status: 404, message, .. }) if message.starts_with("Folder with") => {
                Ok(FolderDeletion::Absent)
            }
            Err(Error::Api { status: 400, message, .. }) if message.contains("contains resources") => {
                Ok(FolderDeletion::NotEmpty)
            }
            Err(e) => Err(e),
        }
    }
}

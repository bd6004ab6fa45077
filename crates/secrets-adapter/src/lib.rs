//! Writes generated credentials and connection details blind to Infisical.

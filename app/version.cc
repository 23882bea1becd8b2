namespace contactlab { const char* kVersion = "0.1.0"; }

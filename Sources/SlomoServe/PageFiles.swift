/// The page's files and the API's OpenAPI document, compiled in from `Page/` (plain files, no build step).
enum PageFiles {
    static let index = PackageResources.index_html
    static let script = PackageResources.app_js
    static let style = PackageResources.style_css
    static let openAPI = PackageResources.openapi_json
}

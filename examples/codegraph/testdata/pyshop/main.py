from shop.billing import invoice

if __name__ == "__main__":
    print(invoice("ada", 3))
